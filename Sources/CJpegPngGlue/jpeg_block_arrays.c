#include "jpeg_block_arrays.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <jerror.h>

// A compact record ends with this many JCOEFs holding the nonzero bitmap (uint64) of the positions not kept.
enum { BITMAP_COEFS = 4 };

// The tag jpeglib.h leaves incomplete: libjpeg only passes these pointers back to the methods below.
struct jvirt_barray_control {
    JBLOCKARRAY rows;  // row pointers into `blocks` (full arrays) or into the window (compact ones), once realized
    JBLOCKROW blocks;  // full arrays: every block (the mapping); compact ones: the window's blocks (malloc'd)
    JCOEF *store;      // compact arrays: `record` JCOEFs a block (the mapping)
    size_t bytes;      // of the mapping
    JDIMENSION row_count, blocks_per_row, max_access;
    int component;     // jdcoefct.c requests one array a component, in component order
    // Compact arrays (record > 0) only.
    int record;                    // JCOEFs a block: the kept values in natural order, then the bitmap
    uint64_t kept;                 // natural-order positions whose values are stored
    signed char slot[DCTSIZE2];    // a kept position's index in the record, else -1
    JDIMENSION window_start, window_rows;
    uint64_t window_band;          // the positions the window was filled with and, if dirty, compacts back
    int window_dirty;              // handed out writable: compacted back before the window is refilled
    struct jvirt_barray_control *next;
};

// The zigzag order of a scan's spectral selection (Ss..Se) as natural-order positions (jpeg_natural_order is
// internal to libjpeg).
static const unsigned char natural_order[DCTSIZE2] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48,
    41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
    30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
};

// The natural-order positions libjpeg-turbo 2.1.5's inverse DCT reads for a block decoded to size x size
// (jddctmgr.c picks jidctred.c or its SSE2 twin for 1, 2, 4): 1x1 uses the DC alone; 2x2 rows and columns
// 0,1,3,5,7; 4x4 all but row and column 4. Every other size reads the whole block: all 64 (nothing to save).
static uint64_t kept_positions(int size) {
    unsigned lines;  // bit i: row/column i is read
    switch (size) {
    case 1: return 1;
    case 2: lines = 0xAB; break;  // 0,1,3,5,7
    case 4: lines = 0xEF; break;  // 0,1,2,3,5,6,7
    default: return ~(uint64_t)0;
    }
    uint64_t kept = 0;
    for (int row = 0; row < DCTSIZE; row++)
        for (int column = 0; column < DCTSIZE; column++)
            if ((lines >> row & 1) && (lines >> column & 1)) kept |= (uint64_t)1 << (row * DCTSIZE + column);
    return kept;
}

// libjpeg-turbo 2.1.5's choice of a component's IDCT size (jdmaster.c, jpeg_calc_output_dimensions, scale_num 1):
// the smallest size for the scaling, doubled while the component's subsampling lets the IDCT do its upsampling.
static int scaled_dct_size(j_decompress_ptr cinfo, const jpeg_component_info *component, int scale_denom) {
    int least = scale_denom >= 8 ? 1 : scale_denom >= 4 ? 2 : scale_denom >= 2 ? 4 : DCTSIZE;
    int size = least;
    while (size < DCTSIZE && (cinfo->max_h_samp_factor * least) % (component->h_samp_factor * size * 2) == 0 &&
           (cinfo->max_v_samp_factor * least) % (component->v_samp_factor * size * 2) == 0)
        size *= 2;
    return size;
}

#if JPEG_LIB_VERSION >= 70
#define DCT_SIZE(component) \
    ((component)->DCT_h_scaled_size == (component)->DCT_v_scaled_size ? (component)->DCT_h_scaled_size : DCTSIZE)
#else
#define DCT_SIZE(component) ((component)->DCT_scaled_size)
#endif

static int popcount64(uint64_t bits) { return __builtin_popcountll(bits); }

// JCOEFs a block of a compact array takes, or 0 when the component is stored whole.
static int record_length(uint64_t kept) {
    return kept == ~(uint64_t)0 ? 0 : popcount64(kept) + BITMAP_COEFS;
}

// Bytes of a compact array: its records and its window of `window_rows` rows of full blocks.
static uint64_t compact_bytes(uint64_t columns, uint64_t rows, int record, uint64_t window_rows) {
    return columns * rows * record * sizeof(JCOEF) + window_rows * columns * sizeof(JBLOCK);
}

// The record length to store an array with, or 0 for whole blocks: always for TC_COEFFICIENTS_WHOLE; by default
// unless the record is the DC and its bitmap (a quarter of a block at most: cheap to copy); and whenever the window
// would cost more than the records save (a small image, whose window is a large part of it).
static int chosen_record(tc_coefficient_storage storage, uint64_t kept, uint64_t columns, uint64_t rows,
                         uint64_t window_rows) {
    int record = storage == TC_COEFFICIENTS_WHOLE ? 0 : record_length(kept);
    if (storage == TC_COEFFICIENTS_COMPACT && record * 4 > DCTSIZE2) return 0;
    if (record && compact_bytes(columns, rows, record, window_rows) >= columns * rows * sizeof(JBLOCK)) return 0;
    return record;
}

uint64_t tc_block_arrays_estimate(j_decompress_ptr cinfo, int scale_denom, tc_coefficient_storage storage) {
    uint64_t total = 0;
    for (int ci = 0; ci < cinfo->num_components; ci++) {
        const jpeg_component_info *c = &cinfo->comp_info[ci];
        uint64_t columns = ((uint64_t)c->width_in_blocks + c->h_samp_factor - 1) / c->h_samp_factor * c->h_samp_factor;
        uint64_t rows = ((uint64_t)c->height_in_blocks + c->v_samp_factor - 1) / c->v_samp_factor * c->v_samp_factor;
        uint64_t window_rows = 5 * (uint64_t)c->v_samp_factor;  // jdcoefct.c's access rows with smoothing
        if (window_rows > rows) window_rows = rows;
        int record = cinfo->progressive_mode
                         ? chosen_record(storage, kept_positions(scaled_dct_size(cinfo, c, scale_denom)), columns, rows,
                                         window_rows)
                         : 0;
        // (Row pointers, 8 bytes a block row, are left to the caller's allowance for libjpeg's tables.)
        total += record ? compact_bytes(columns, rows, record, window_rows) : columns * rows * sizeof(JBLOCK);
    }
    return total;
}

static jvirt_barray_ptr request_array(j_common_ptr cinfo, int pool_id, boolean pre_zero, JDIMENSION blocks_per_row,
                                JDIMENSION row_count, JDIMENSION max_access) {
    (void)pre_zero;  // a fresh mapping is zero
    if (pool_id != JPOOL_IMAGE) ERREXIT1(cinfo, JERR_BAD_POOL_ID, pool_id);
    struct jvirt_barray_control *array = calloc(1, sizeof *array);
    if (!array) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 0);
    tc_block_arrays *arrays = tc_jpeg_block_arrays(cinfo);
    array->blocks_per_row = blocks_per_row;
    array->row_count = row_count;
    array->max_access = max_access < row_count ? max_access : row_count;
    array->component = arrays->requested++;
    array->next = arrays->first;
    arrays->first = array;
    return array;
}

// Whether `array` can be stored compactly, and how: only a progressive decode's arrays (the IDCT sizes are set by
// now, jpeg_start_decompress having chosen them before the coefficient controller asks for its arrays), and
// only when the array is the one jdcoefct.c asks for the component (same size); anything else is stored whole.
static void choose_layout(j_common_ptr common, tc_block_arrays *arrays, struct jvirt_barray_control *array) {
    array->record = 0;
    if (arrays->storage == TC_COEFFICIENTS_WHOLE || !common->is_decompressor) return;
    j_decompress_ptr cinfo = (j_decompress_ptr)common;
    if (!cinfo->progressive_mode || array->component >= cinfo->num_components) return;
    const jpeg_component_info *c = &cinfo->comp_info[array->component];
    JDIMENSION columns = (c->width_in_blocks + c->h_samp_factor - 1) / c->h_samp_factor * c->h_samp_factor;
    JDIMENSION rows = (c->height_in_blocks + c->v_samp_factor - 1) / c->v_samp_factor * c->v_samp_factor;
    if (columns != array->blocks_per_row || rows != array->row_count) return;
    uint64_t kept = kept_positions(DCT_SIZE(c));
    array->record = chosen_record(arrays->storage, kept, columns, rows, array->max_access);
    if (array->record == 0) return;
    array->kept = kept;
    int slot = 0;
    for (int position = 0; position < DCTSIZE2; position++)
        array->slot[position] = (kept >> position & 1) ? (signed char)slot++ : -1;
}

static void realize_arrays(j_common_ptr cinfo) {
    tc_block_arrays *arrays = tc_jpeg_block_arrays(cinfo);
    arrays->libjpeg_realize(cinfo);
    // libjpeg's own limit (max_memory_to_use, no backing store), counted over these arrays: they are almost all
    // of a decode's memory, and the caller's estimate, checked before, is the real bound.
    uint64_t total = 0;
    for (struct jvirt_barray_control *array = arrays->first; array; array = array->next) {
        if (array->rows) continue;
        choose_layout(cinfo, arrays, array);
        uint64_t blocks = (uint64_t)array->row_count * array->blocks_per_row;
        array->bytes = (size_t)(array->record ? blocks * array->record * sizeof(JCOEF) : blocks * sizeof(JBLOCK));
        total += array->bytes;
        if (array->record) total += (uint64_t)array->max_access * array->blocks_per_row * sizeof(JBLOCK);
    }
    if (total > (uint64_t)cinfo->mem->max_memory_to_use) ERREXIT(cinfo, JERR_NO_BACKING_STORE);
    for (struct jvirt_barray_control *array = arrays->first; array; array = array->next) {
        if (array->rows || array->bytes == 0) continue;
        void *mapping = mmap(NULL, array->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mapping == MAP_FAILED) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 1);
#ifdef MADV_HUGEPAGE
        (void)madvise(mapping, array->bytes, MADV_HUGEPAGE);
#endif
        JDIMENSION row_pointers = array->record ? array->max_access : array->row_count;
        array->rows = malloc(row_pointers * sizeof(JBLOCKROW));
        if (!array->rows) {
            munmap(mapping, array->bytes);
            ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 2);
        }
        if (array->record) {
            array->store = mapping;
            array->blocks = malloc((size_t)array->max_access * array->blocks_per_row * sizeof(JBLOCK));
            if (!array->blocks) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 3);
        } else {
            array->blocks = mapping;
        }
        for (JDIMENSION row = 0; row < row_pointers; row++)
            array->rows[row] = array->blocks + (size_t)row * array->blocks_per_row;
    }
}

// The window's band split in two: kept positions with their index in a record, and the others (nonzero bits).
struct band_lists {
    unsigned char values[DCTSIZE2], slots[DCTSIZE2], flags[DCTSIZE2];
    int value_count, flag_count;
};

static void list_band(const struct jvirt_barray_control *array, struct band_lists *lists) {
    lists->value_count = lists->flag_count = 0;
    for (int position = 0; position < DCTSIZE2; position++) {
        if (!(array->window_band >> position & 1)) continue;
        if (array->slot[position] >= 0) {
            lists->values[lists->value_count] = (unsigned char)position;
            lists->slots[lists->value_count++] = (unsigned char)array->slot[position];
        } else {
            lists->flags[lists->flag_count++] = (unsigned char)position;
        }
    }
}

// A compact array's window: the blocks of `window_rows` rows as libjpeg expects them, filled from the records
// for the positions in `band`. Reads (the output pass) get every position: the kept values, and 1 for each other
// nonzero coefficient, 0 else; the IDCT never reads those, so only their zero-ness is kept, which is all
// anything else looks at (the SSE2 4x4 IDCT's all-zero test and block smoothing's "still zero" test; smoothing's
// estimates come from DC values alone). Writes (the input pass, jdcoefct.c's consume_data) get the current scan's
// spectral band: the decoder reads and writes nothing else, and an AC refinement scan must see which of the
// band's coefficients are nonzero (it reads a correction bit for each): the bitmap of the positions not kept.
static void fill_window(struct jvirt_barray_control *array) {
    struct band_lists lists;
    list_band(array, &lists);
    int value_count = lists.value_count, flag_count = lists.flag_count;
    const unsigned char *values = lists.values, *slots = lists.slots, *flags = lists.flags;
    int bitmap_at = array->record - BITMAP_COEFS, whole = array->window_band == ~(uint64_t)0;
    for (JDIMENSION row = 0; row < array->window_rows; row++) {
        const JCOEF *record = array->store + ((size_t)(array->window_start + row) * array->blocks_per_row) * array->record;
        JBLOCKROW blocks = array->rows[row];
        for (JDIMENSION b = 0; b < array->blocks_per_row; b++, record += array->record) {
            JCOEF *block = blocks[b];
            uint64_t nonzero;
            memcpy(&nonzero, record + bitmap_at, sizeof nonzero);
            if (whole) {
                memset(block, 0, sizeof(JBLOCK));
                for (int i = 0; i < value_count; i++) block[values[i]] = record[slots[i]];
                for (; nonzero; nonzero &= nonzero - 1) block[__builtin_ctzll(nonzero)] = 1;
            } else {
                for (int i = 0; i < value_count; i++) block[values[i]] = record[slots[i]];
                for (int i = 0; i < flag_count; i++) block[flags[i]] = (JCOEF)(nonzero >> flags[i] & 1);
            }
        }
    }
}

// Stores a window handed out writable back into the records: the band's kept values and nonzero bits.
static void compact_window(struct jvirt_barray_control *array) {
    struct band_lists lists;
    list_band(array, &lists);
    int value_count = lists.value_count, flag_count = lists.flag_count;
    const unsigned char *values = lists.values, *slots = lists.slots, *flags = lists.flags;
    uint64_t flag_band = array->window_band & ~array->kept;
    int bitmap_at = array->record - BITMAP_COEFS;
    for (JDIMENSION row = 0; row < array->window_rows; row++) {
        JCOEF *record = array->store + ((size_t)(array->window_start + row) * array->blocks_per_row) * array->record;
        JBLOCKROW blocks = array->rows[row];
        for (JDIMENSION b = 0; b < array->blocks_per_row; b++, record += array->record) {
            const JCOEF *block = blocks[b];
            for (int i = 0; i < value_count; i++) record[slots[i]] = block[values[i]];
            if (flag_count == 0) continue;
            uint64_t nonzero, found = 0;
            memcpy(&nonzero, record + bitmap_at, sizeof nonzero);
            for (int i = 0; i < flag_count; i++) found |= (uint64_t)(block[flags[i]] != 0) << flags[i];
            nonzero = (nonzero & ~flag_band) | found;
            memcpy(record + bitmap_at, &nonzero, sizeof nonzero);
        }
    }
}

// The positions a writable access's caller (consume_data, decoding the current scan) can touch.
static uint64_t scan_band(j_common_ptr common) {
    if (!common->is_decompressor) return ~(uint64_t)0;
    j_decompress_ptr cinfo = (j_decompress_ptr)common;
    if (cinfo->Ss < 0 || cinfo->Se >= DCTSIZE2 || cinfo->Ss > cinfo->Se) return ~(uint64_t)0;
    uint64_t band = 0;
    for (int k = cinfo->Ss; k <= cinfo->Se; k++) band |= (uint64_t)1 << natural_order[k];
    return band;
}

static JBLOCKARRAY access_array(j_common_ptr cinfo, jvirt_barray_ptr array, JDIMENSION start_row, JDIMENSION row_count,
                          boolean writable) {
    if (!array->rows || start_row > array->row_count || row_count > array->row_count - start_row)
        ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);
    if (!array->record) return array->rows + start_row;
    // The same swap as jmemmgr.c's backing store: only the latest access of an array is valid.
    if (row_count > array->max_access) ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);
    if (array->window_dirty) compact_window(array);
    array->window_start = start_row;
    array->window_rows = row_count;
    // Reads get every row the window can hold: block smoothing of iMCU row 1 (jdcoefct.c, 2.1.5) asks for three
    // iMCU rows from row 0 yet reads the fourth's first block row too, which libjpeg's own manager, holding the
    // whole array in memory, has there anyway.
    if (!writable) {
        JDIMENSION available = array->row_count - start_row;
        array->window_rows = array->max_access < available ? array->max_access : available;
    }
    array->window_band = writable ? scan_band(cinfo) : ~(uint64_t)0;
    array->window_dirty = writable;
    fill_window(array);
    return array->rows;
}

void tc_block_arrays_install(j_common_ptr cinfo) {
    tc_block_arrays *arrays = tc_jpeg_block_arrays(cinfo);
    arrays->libjpeg_realize = cinfo->mem->realize_virt_arrays;
    arrays->requested = 0;
    cinfo->mem->request_virt_barray = request_array;
    cinfo->mem->realize_virt_arrays = realize_arrays;
    cinfo->mem->access_virt_barray = access_array;
}

void tc_block_arrays_release(tc_block_arrays *arrays) {
    while (arrays->first) {
        struct jvirt_barray_control *array = arrays->first;
        arrays->first = array->next;
        if (array->record) {
            if (array->store) munmap(array->store, array->bytes);
            free(array->blocks);
        } else if (array->blocks) {
            munmap(array->blocks, array->bytes);
        }
        free(array->rows);
        free(array);
    }
}
