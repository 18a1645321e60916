// libjpeg's whole-image coefficient buffer, mapped from the kernel instead of malloc'd.
//
// A progressive JPEG makes libjpeg keep every coefficient of the image (48 MB for a 24 MP 4:2:0 photo). Its
// default memory manager mallocs that (glibc maps anything this large afresh each time), zero-fills it on
// first access and unmaps it at the end: one page fault per 4 KiB plus the fill, about a fifth of serve's CPU
// on a progressive miss once unused scans are dropped (perf, bench-serve's photos). These replacements of the
// manager's three block-array methods (a documented extension point: jpeg_memory_mgr's methods) map each
// array with mmap, which is zero already, and ask for transparent huge pages (MADV_HUGEPAGE; a no-op where THP
// is off): the kernel then faults the array in 2 MiB at a time. Arrays are unmapped by tc_block_arrays_release.
#ifndef THUMBCACHE_JPEG_BLOCK_ARRAYS_H
#define THUMBCACHE_JPEG_BLOCK_ARRAYS_H

#include <stdio.h>
#include <jpeglib.h>

typedef struct {
    struct jvirt_barray_control *first;
    void (*libjpeg_realize)(j_common_ptr cinfo);  // still realizes libjpeg's own (sample) arrays
} tc_block_arrays;

/// The arrays of the decompression `cinfo` belongs to (libjpeg's methods are given only `cinfo`); defined by
/// the decoder that owns them (jpeg_decode.c).
tc_block_arrays *tc_jpeg_block_arrays(j_common_ptr cinfo);
/// Installs the methods on `cinfo`'s memory manager, before jpeg_start_decompress requests the arrays.
void tc_block_arrays_install(j_common_ptr cinfo);
/// Unmaps every array (after jpeg_finish_decompress, on failure, or when the decoder is destroyed).
void tc_block_arrays_release(tc_block_arrays *arrays);

#endif
