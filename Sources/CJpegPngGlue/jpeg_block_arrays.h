// libjpeg's whole-image coefficient buffer, mapped from the kernel instead of malloc'd.
//
// A progressive JPEG makes libjpeg keep every coefficient of the image (72 MB for a 24 MP 4:2:0 photo). Its
// default memory manager mallocs that (glibc maps anything this large afresh each time), zero-fills it on
// first access and unmaps it at the end: one page fault per 4 KiB plus the fill, about a fifth of serve's CPU
// on a progressive miss once unused scans are dropped (perf, bench-serve's photos). These replacements of the
// manager's three block-array methods (a documented extension point: jpeg_memory_mgr's methods) map each
// array with mmap, which is zero already, and ask for transparent huge pages (MADV_HUGEPAGE; a no-op where THP
// is off): the kernel then faults the array in 2 MiB at a time. Arrays are unmapped by tc_block_arrays_release.
//
// A progressive decode at 1/2, 1/4 or 1/8 can be stored compactly (`storage`): its IDCT reads only some of a
// block's coefficients (the DC alone for a 1x1 block), so a block keeps those values and a bitmap of which of the
// others are nonzero (what a later refinement scan must know): 10 bytes instead of 128 for a block decoded to 1x1,
// 58 for 2x2, 106 for 4x4. libjpeg is handed a window of whole blocks per access and the window is compacted back
// on the next, as jmemmgr.c swaps an array to its backing store. The pixels are those of a whole-block decode
// (see fill_window). By default only 1x1 components are compact (luma of 4:2:0 at 1/8, every component of 4:4:4):
// copying their single value is cheap, while copying a 2x2 block's 25 values in and out for every AC scan cost
// more time than it saved memory (docs/benchmarks.md); a 24 MP 4:2:0 photo at 1/8 then needs 29 MB, not 72.
#ifndef THUMBCACHE_JPEG_BLOCK_ARRAYS_H
#define THUMBCACHE_JPEG_BLOCK_ARRAYS_H

#include <stdint.h>
#include <stdio.h>
#include <jpeglib.h>

#include "CJpegPngGlue.h"

typedef struct {
    struct jvirt_barray_control *first;
    void (*libjpeg_realize)(j_common_ptr cinfo);  // still realizes libjpeg's own (sample) arrays
    tc_coefficient_storage storage;  // how a progressive decode's reduced blocks are kept (before jpeg_start_decompress)
    int requested;  // arrays requested so far: the nth is component n's (jdcoefct.c's order)
} tc_block_arrays;

/// The arrays of the decompression `cinfo` belongs to (libjpeg's methods are given only `cinfo`); defined by
/// the decoder that owns them (jpeg_decode.c).
tc_block_arrays *tc_jpeg_block_arrays(j_common_ptr cinfo);
/// Installs the methods on `cinfo`'s memory manager, before jpeg_start_decompress requests the arrays.
void tc_block_arrays_install(j_common_ptr cinfo);
/// Bytes the arrays of a decode at 1/scale_denom will take, windows included, for a file whose header has been
/// read: what realize_arrays counts against max_memory_to_use (from the IDCT sizes jpeg_calc_output_dimensions sets).
uint64_t tc_block_arrays_estimate(j_decompress_ptr cinfo, int scale_denom, tc_coefficient_storage storage);
/// Unmaps every array (after jpeg_finish_decompress, on failure, or when the decoder is destroyed).
void tc_block_arrays_release(tc_block_arrays *arrays);

#endif
