#include "CJpegPngGlue.h"

#include <setjmp.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

#include "jpeg_block_arrays.h"
#include "jpeg_scan_filter.h"

// Progressive files can have thousands of tiny scans, each costing a pass over the whole
// coefficient buffer (a known denial-of-service shape). libjpeg-turbo's djpeg caps it too.
enum { MAX_SCANS = 500 };

enum { CHUNK = 4096 };

struct tc_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr error;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    int created;
    tc_status failure;
    char message[TC_MESSAGE_CAPACITY];
    // One source manager for memory and files, handing libjpeg the same 4 KiB chunks either way (see fill).
    struct jpeg_source_mgr source;
    const uint8_t *data;
    size_t size, offset;
    FILE *file;  // when set, the source instead of data/size
    // Set when tc_jpeg_start found scans the output cannot use: libjpeg then reads through the filter, which
    // reads the raw file through read_raw (into raw_chunk for files).
    int filtering;
    tc_scan_filter filter;
    tc_block_arrays arrays;  // the coefficient buffer of progressive and multi-scan files
    int multiple_scans;      // the file needs that buffer (as jdinput.c decides has_multiple_scans)
    JOCTET raw_chunk[CHUNK];
    JOCTET chunk[CHUNK + TC_SCAN_FILTER_SLACK];
};

// libjpeg-turbo's fast Huffman path runs only while a whole MCU's worth of bytes is buffered, and it
// decodes a bad code as 0 without the warning its slow path gives. How much is buffered therefore
// decides whether damage is noticed, so memory and files are fed identically: the same chunk size,
// the same fake EOI (with the "premature end" warning) at the end, as libjpeg's own stdio source does.
static const JOCTET fake_eoi[2] = {0xFF, JPEG_EOI};

static void source_init(j_decompress_ptr cinfo) { (void)cinfo; }

// The filter's raw input: the rest of the memory at once, or the next chunk of the file.
static size_t read_raw(void *context, const uint8_t **bytes) {
    tc_jpeg_decoder *decoder = context;
    if (decoder->file) {
        *bytes = decoder->raw_chunk;
        return fread(decoder->raw_chunk, 1, CHUNK, decoder->file);
    }
    *bytes = decoder->data + decoder->offset;
    size_t count = decoder->size - decoder->offset;
    decoder->offset = decoder->size;
    return count;
}

static boolean source_fill(j_decompress_ptr cinfo) {
    tc_jpeg_decoder *decoder = (tc_jpeg_decoder *)cinfo->client_data;
    size_t count;
    if (decoder->filtering) {
        count = tc_scan_filter_fill(&decoder->filter, decoder->chunk, CHUNK);
        decoder->source.next_input_byte = decoder->chunk;
    } else if (decoder->file) {
        count = fread(decoder->chunk, 1, CHUNK, decoder->file);
        decoder->source.next_input_byte = decoder->chunk;
    } else {
        count = decoder->size - decoder->offset;
        if (count > CHUNK) count = CHUNK;
        decoder->source.next_input_byte = decoder->data + decoder->offset;
        decoder->offset += count;
    }
    if (count == 0) {
        WARNMS(cinfo, JWRN_JPEG_EOF);
        decoder->source.next_input_byte = fake_eoi;
        count = sizeof fake_eoi;
    }
    decoder->source.bytes_in_buffer = count;
    return TRUE;
}

static void source_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *source = cinfo->src;
    if (count <= 0) return;
    while (count > (long)source->bytes_in_buffer) {
        count -= (long)source->bytes_in_buffer;
        (void)source->fill_input_buffer(cinfo);
    }
    source->next_input_byte += count;
    source->bytes_in_buffer -= (size_t)count;
}

static void source_term(j_decompress_ptr cinfo) { (void)cinfo; }

static tc_status classify(int code) {
    switch (code) {
    case JWRN_JPEG_EOF:
    case JERR_INPUT_EOF:
    case JERR_INPUT_EMPTY:
        return TC_TRUNCATED;
    case JERR_BAD_PRECISION:
    case JERR_SOF_UNSUPPORTED:
    case JERR_NOT_COMPILED:
    case JERR_CONVERSION_NOTIMPL:
        return TC_UNSUPPORTED;
    case JERR_OUT_OF_MEMORY:
        return TC_NO_MEMORY;
    case JERR_NO_BACKING_STORE:  // a virtual array did not fit under max_memory_to_use
        return TC_OVER_BUDGET;
    default:
        return TC_CORRUPT;
    }
}

static void fail(j_common_ptr cinfo) {
    tc_jpeg_decoder *decoder = (tc_jpeg_decoder *)cinfo->client_data;
    decoder->failure = classify(cinfo->err->msg_code);
    cinfo->err->format_message(cinfo, decoder->message);
    longjmp(decoder->jump, 1);
}

// Warnings ("Premature end of JPEG file", "Corrupt JPEG data: ...") mean the pixels are
// partly invented; a cache must not store that as if it were the image, so they fail too.
static void emit_message(j_common_ptr cinfo, int level) {
    if (level < 0) fail(cinfo);
}

static void check_progress(j_common_ptr cinfo) {
    j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;
    if (dinfo->input_scan_number > MAX_SCANS) {
        tc_jpeg_decoder *decoder = (tc_jpeg_decoder *)cinfo->client_data;
        decoder->failure = TC_CORRUPT;
        snprintf(decoder->message, sizeof decoder->message,
                 "progressive JPEG has more than %d scans", MAX_SCANS);
        longjmp(decoder->jump, 1);
    }
}

static tc_jpeg_decoder *create(const uint8_t *data, size_t size, FILE *file) {
    tc_jpeg_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    decoder->data = data;
    decoder->size = size;
    decoder->file = file;
    decoder->cinfo.err = jpeg_std_error(&decoder->error);
    decoder->error.error_exit = fail;
    decoder->error.emit_message = emit_message;
    decoder->cinfo.client_data = decoder;
    if (setjmp(decoder->jump)) {
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->cinfo);
    decoder->created = 1;
    decoder->progress.progress_monitor = check_progress;
    decoder->cinfo.progress = &decoder->progress;
    return decoder;
}

tc_jpeg_decoder *tc_jpeg_decoder_create(const uint8_t *data, size_t size) { return create(data, size, NULL); }

tc_jpeg_decoder *tc_jpeg_decoder_create_file(FILE *file) { return create(NULL, 0, file); }

tc_block_arrays *tc_jpeg_block_arrays(j_common_ptr cinfo) {
    return &((tc_jpeg_decoder *)cinfo->client_data)->arrays;
}

void tc_jpeg_decoder_destroy(tc_jpeg_decoder *decoder) {
    if (!decoder) return;
    if (decoder->created) jpeg_destroy_decompress(&decoder->cinfo);
    tc_block_arrays_release(&decoder->arrays);
    free(decoder);
}

const char *tc_jpeg_message(const tc_jpeg_decoder *decoder) { return decoder->message; }

tc_status tc_jpeg_read_header(tc_jpeg_decoder *decoder, tc_jpeg_header *header) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    if (setjmp(decoder->jump)) return decoder->failure;
    decoder->source.init_source = source_init;
    decoder->source.fill_input_buffer = source_fill;
    decoder->source.skip_input_data = source_skip;
    decoder->source.resync_to_restart = jpeg_resync_to_restart;
    decoder->source.term_source = source_term;
    decoder->source.bytes_in_buffer = 0;
    decoder->source.next_input_byte = NULL;
    cinfo->src = &decoder->source;
    jpeg_save_markers(cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(cinfo, TRUE);
    header->width = (int)cinfo->image_width;
    header->height = (int)cinfo->image_height;
    header->components = cinfo->num_components;
    header->color_space = cinfo->jpeg_color_space;
    header->progressive = cinfo->progressive_mode;
    header->saw_adobe_marker = cinfo->saw_Adobe_marker;
    // As jdinput.c decides has_multiple_scans (known once the first SOS is read, which jpeg_read_header does).
    decoder->multiple_scans = cinfo->progressive_mode || cinfo->comps_in_scan < cinfo->num_components;
    return TC_OK;
}

uint64_t tc_jpeg_coefficient_bytes(const tc_jpeg_decoder *decoder, int scale_denom, tc_coefficient_storage storage) {
    if (!decoder->multiple_scans) return 0;
    // Only reads the component dimensions read_header set up (safe after tc_jpeg_start too).
    return tc_block_arrays_estimate((j_decompress_ptr)&decoder->cinfo, scale_denom, storage);
}

const uint8_t *tc_jpeg_exif(const tc_jpeg_decoder *decoder, size_t *length) {
    static const char prefix[6] = {'E', 'x', 'i', 'f', 0, 0};
    for (jpeg_saved_marker_ptr m = decoder->cinfo.marker_list; m; m = m->next) {
        if (m->marker == JPEG_APP0 + 1 && m->data_length > 6 && memcmp(m->data, prefix, 6) == 0) {
            *length = m->data_length - 6;
            return m->data + 6;
        }
    }
    *length = 0;
    return NULL;
}

const uint8_t *tc_jpeg_xmp(const tc_jpeg_decoder *decoder, size_t *length) {
    static const char prefix[] = "http://ns.adobe.com/xap/1.0/";  // with its NUL: 29 bytes
    for (jpeg_saved_marker_ptr m = decoder->cinfo.marker_list; m; m = m->next) {
        if (m->marker == JPEG_APP0 + 1 && m->data_length > sizeof prefix && memcmp(m->data, prefix, sizeof prefix) == 0) {
            *length = m->data_length - sizeof prefix;
            return m->data + sizeof prefix;
        }
    }
    *length = 0;
    return NULL;
}

// Our own reader instead of libjpeg-turbo's jpeg_read_icc_profile: that one raises a warning on
// malformed chunks, which our warning policy would turn into a failed decode. A bad profile
// should only cost the colour conversion, not the image.
int tc_jpeg_icc(const tc_jpeg_decoder *decoder, uint8_t **profile, size_t *length) {
    static const char tag[12] = {'I', 'C', 'C', '_', 'P', 'R', 'O', 'F', 'I', 'L', 'E', 0};
    enum { HEADER = 14 };
    jpeg_saved_marker_ptr found[256] = {0};
    int count = 0;
    size_t total = 0;
    *profile = NULL;
    *length = 0;
    for (jpeg_saved_marker_ptr m = decoder->cinfo.marker_list; m; m = m->next) {
        if (m->marker != JPEG_APP0 + 2 || m->data_length <= HEADER || memcmp(m->data, tag, 12) != 0) continue;
        int sequence = m->data[12], declared = m->data[13];
        if (declared == 0 || sequence == 0 || sequence > declared) return 0;
        if (count == 0) count = declared;
        if (declared != count || found[sequence]) return 0;
        found[sequence] = m;
        total += m->data_length - HEADER;
    }
    if (count == 0) return 0;
    for (int i = 1; i <= count; i++) if (!found[i]) return 0;
    uint8_t *joined = malloc(total);
    if (!joined) return 0;
    size_t offset = 0;
    for (int i = 1; i <= count; i++) {
        memcpy(joined + offset, found[i]->data + HEADER, found[i]->data_length - HEADER);
        offset += found[i]->data_length - HEADER;
    }
    *profile = joined;
    *length = total;
    return 1;
}

#if JPEG_LIB_VERSION >= 70
#define ONE_PIXEL_PER_BLOCK(component) ((component)->DCT_h_scaled_size == 1 && (component)->DCT_v_scaled_size == 1)
#else
#define ONE_PIXEL_PER_BLOCK(component) ((component)->DCT_scaled_size == 1)
#endif

// Called after the output size is set and before libjpeg reads past the first scan's header (where
// jpeg_read_header stopped). Components that come out one pixel per block use only their DC coefficient.
static void filter_unused_scans(tc_jpeg_decoder *decoder) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    if (!cinfo->progressive_mode || cinfo->arith_code) return;
    jpeg_calc_output_dimensions(cinfo);
    uint8_t seen[256] = {0}, unused[256] = {0};
    int any = 0;
    for (int ci = 0; ci < cinfo->num_components; ci++) {
        const jpeg_component_info *component = &cinfo->comp_info[ci];
        if (seen[component->component_id]++) return;  // ids must tell the components apart
        if (ONE_PIXEL_PER_BLOCK(component)) unused[component->component_id] = any = 1;
    }
    if (!any) return;
    tc_scan_filter_start(&decoder->filter, read_raw, decoder);
    memcpy(decoder->filter.unused_ac, unused, sizeof unused);
    // The first scan's SOS was read by jpeg_read_header, before the filter.
    if (cinfo->Ss == 0 && cinfo->Ah == 0)
        for (int i = 0; i < cinfo->comps_in_scan; i++) decoder->filter.dc_seen[cinfo->cur_comp_info[i]->component_id] = 1;
    // What libjpeg has buffered but not read is raw input still: the filter reads it first.
    size_t buffered = decoder->source.bytes_in_buffer;
    if (decoder->file) {
        memcpy(decoder->raw_chunk, decoder->source.next_input_byte, buffered);
        decoder->filter.raw = decoder->raw_chunk;
        decoder->filter.raw_length = buffered;
    } else {
        decoder->offset -= buffered;
    }
    decoder->source.bytes_in_buffer = 0;
    // Smoothing would estimate the absent AC coefficients (and, since libjpeg-turbo 2.1, adjust DC from them).
    cinfo->do_block_smoothing = FALSE;
    decoder->filtering = 1;
}

uint64_t tc_jpeg_dropped_bytes(const tc_jpeg_decoder *decoder) {
    return decoder->filtering ? decoder->filter.dropped_bytes : 0;
}

tc_status tc_jpeg_start(tc_jpeg_decoder *decoder, int scale_denom, int cmyk, int drop_unused_scans,
                        tc_coefficient_storage storage, size_t max_memory, int *out_width, int *out_height, int *out_components) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    if (setjmp(decoder->jump)) return decoder->failure;
    // The estimate checked before this call is the real bound; this is libjpeg's own backstop. With no
    // backing store (jmemnobs), an array that does not fit fails with JERR_NO_BACKING_STORE.
    cinfo->mem->max_memory_to_use = max_memory > (size_t)LONG_MAX ? LONG_MAX : (long)max_memory;
    cinfo->scale_num = 1;
    cinfo->scale_denom = (unsigned int)scale_denom;
    cinfo->out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGB;
    if (drop_unused_scans) filter_unused_scans(decoder);
    tc_block_arrays_install((j_common_ptr)cinfo);
    decoder->arrays.storage = storage;
    jpeg_start_decompress(cinfo);
    *out_width = (int)cinfo->output_width;
    *out_height = (int)cinfo->output_height;
    *out_components = cinfo->output_components;
    return TC_OK;
}

tc_status tc_jpeg_read_rows(tc_jpeg_decoder *decoder, uint8_t *buffer, size_t stride,
                            int max_rows, int *rows_read) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    enum { MAX_BATCH = 16 };
    JSAMPROW rows[MAX_BATCH];
    if (max_rows > MAX_BATCH) max_rows = MAX_BATCH;
    for (int i = 0; i < max_rows; i++) rows[i] = buffer + (size_t)i * stride;
    *rows_read = 0;
    if (setjmp(decoder->jump)) return decoder->failure;
    *rows_read = (int)jpeg_read_scanlines(cinfo, rows, (JDIMENSION)max_rows);
    return TC_OK;
}

tc_status tc_jpeg_finish(tc_jpeg_decoder *decoder) {
    if (setjmp(decoder->jump)) return decoder->failure;
    jpeg_finish_decompress(&decoder->cinfo);
    tc_block_arrays_release(&decoder->arrays);
    return TC_OK;
}
