#include "jpeg_block_arrays.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <jerror.h>

// The tag jpeglib.h leaves incomplete: libjpeg only passes these pointers back to the methods below.
struct jvirt_barray_control {
    JBLOCKARRAY rows;  // row pointers into `blocks`, once realized
    JBLOCKROW blocks;
    size_t bytes;      // of the mapping
    JDIMENSION row_count, blocks_per_row;
    struct jvirt_barray_control *next;
};

static jvirt_barray_ptr request_array(j_common_ptr cinfo, int pool_id, boolean pre_zero, JDIMENSION blocks_per_row,
                                JDIMENSION row_count, JDIMENSION max_access) {
    (void)pre_zero;  // a fresh mapping is zero
    (void)max_access;  // the whole array is in memory
    if (pool_id != JPOOL_IMAGE) ERREXIT1(cinfo, JERR_BAD_POOL_ID, pool_id);
    struct jvirt_barray_control *array = calloc(1, sizeof *array);
    if (!array) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 0);
    tc_block_arrays *arrays = tc_jpeg_block_arrays(cinfo);
    array->blocks_per_row = blocks_per_row;
    array->row_count = row_count;
    array->next = arrays->first;
    arrays->first = array;
    return array;
}

static void realize_arrays(j_common_ptr cinfo) {
    tc_block_arrays *arrays = tc_jpeg_block_arrays(cinfo);
    arrays->libjpeg_realize(cinfo);
    // libjpeg's own limit (max_memory_to_use, no backing store), counted over these arrays: they are almost all
    // of a decode's memory, and the caller's estimate, checked before, is the real bound.
    uint64_t total = 0;
    for (struct jvirt_barray_control *array = arrays->first; array; array = array->next) {
        if (array->rows) continue;
        array->bytes = (size_t)((uint64_t)array->row_count * array->blocks_per_row * sizeof(JBLOCK));
        total += array->bytes;
    }
    if (total > (uint64_t)cinfo->mem->max_memory_to_use) ERREXIT(cinfo, JERR_NO_BACKING_STORE);
    for (struct jvirt_barray_control *array = arrays->first; array; array = array->next) {
        if (array->rows || array->bytes == 0) continue;
        void *mapping = mmap(NULL, array->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mapping == MAP_FAILED) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 1);
        array->blocks = mapping;
#ifdef MADV_HUGEPAGE
        (void)madvise(mapping, array->bytes, MADV_HUGEPAGE);
#endif
        array->rows = malloc(array->row_count * sizeof(JBLOCKROW));
        if (!array->rows) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 2);
        for (JDIMENSION row = 0; row < array->row_count; row++)
            array->rows[row] = array->blocks + (size_t)row * array->blocks_per_row;
    }
}

static JBLOCKARRAY access_array(j_common_ptr cinfo, jvirt_barray_ptr array, JDIMENSION start_row, JDIMENSION row_count,
                          boolean writable) {
    (void)writable;
    if (!array->rows || start_row > array->row_count || row_count > array->row_count - start_row)
        ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);
    return array->rows + start_row;
}

void tc_block_arrays_install(j_common_ptr cinfo) {
    tc_block_arrays *arrays = tc_jpeg_block_arrays(cinfo);
    arrays->libjpeg_realize = cinfo->mem->realize_virt_arrays;
    cinfo->mem->request_virt_barray = request_array;
    cinfo->mem->realize_virt_arrays = realize_arrays;
    cinfo->mem->access_virt_barray = access_array;
}

void tc_block_arrays_release(tc_block_arrays *arrays) {
    while (arrays->first) {
        struct jvirt_barray_control *array = arrays->first;
        arrays->first = array->next;
        if (array->blocks) munmap(array->blocks, array->bytes);
        free(array->rows);
        free(array);
    }
}
