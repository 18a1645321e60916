// Drops the scans of a progressive JPEG whose coefficients the chosen output cannot use.
//
// At 1/8 scale libjpeg reconstructs a component whose scaled block is 1x1 from its DC coefficient alone
// (jpeg_idct_1x1), so the component's AC scans, most of a progressive file's bytes, are entropy-decoded into
// the coefficient buffer only to be ignored. This filter sits between the byte source and libjpeg and leaves
// those scans out, marker structure intact: the pixels are the same, bit for bit (with block smoothing off,
// which would otherwise estimate the absent coefficients). Damage inside a dropped scan goes unnoticed; a file
// that ends early is still reported as truncated, because the filter has nothing to hand on.
#ifndef THUMBCACHE_JPEG_SCAN_FILTER_H
#define THUMBCACHE_JPEG_SCAN_FILTER_H

#include <stddef.h>
#include <stdint.h>

/// Hands out the next raw bytes of the file (a view valid until the next call), or 0 at its end.
typedef size_t (*tc_raw_reader)(void *context, const uint8_t **bytes);

/// The largest single emission beyond the requested capacity (a whole SOS segment; longer ones end filtering).
enum { TC_SCAN_FILTER_SLACK = 80 };

typedef struct {
    tc_raw_reader read;
    void *context;
    const uint8_t *raw;          // unread raw bytes of the current view
    size_t raw_length;
    int mode;                    // see jpeg_scan_filter.c
    int dropping;                // in a scan: its entropy-coded data is left out
    int saw_ff;                  // in a scan: the last byte read was 0xFF, its partner not yet seen
    size_t segment_left;         // in a marker segment: bytes still to copy
    uint8_t marker[TC_SCAN_FILTER_SLACK];
    size_t marker_length;
    uint8_t unused_ac[256];      // by component id: the output never reads its AC coefficients
    uint8_t dc_seen[256];        // by component id: its first DC scan has been passed on
    uint64_t dropped_bytes;
} tc_scan_filter;

/// Starts in the entropy-coded data of the first scan (where jpeg_read_header stops), which is kept; the
/// caller sets `unused_ac`, and `dc_seen` for the components that scan carries if it is a first DC scan.
/// An AC scan is dropped only after its component's first DC scan: without that the file is damaged,
/// and libjpeg, seeing the AC scan, says so.
void tc_scan_filter_start(tc_scan_filter *filter, tc_raw_reader read, void *context);
/// Fills `out` with at least `capacity` filtered bytes unless the input ends first (up to
/// `capacity + TC_SCAN_FILTER_SLACK`); returns the count, 0 only at the end of the input.
size_t tc_scan_filter_fill(tc_scan_filter *filter, uint8_t *out, size_t capacity);

#endif
