#include "jpeg_scan_filter.h"

#include <string.h>

// Where the filter is in the JPEG's structure.
enum {
    IN_SCAN,     // entropy-coded data: copied or dropped up to the next marker that is not RSTn
    IN_MARKER,   // reading a marker (and, for SOS, its whole segment) before deciding what to do with it
    IN_SEGMENT,  // copying the rest of a marker segment
    PASSING,     // after EOI or anything unexpected: everything is copied, so libjpeg judges it as before
};

enum { SOS = 0xDA, EOI = 0xD9, SOI = 0xD8, TEM = 0x01 };

void tc_scan_filter_start(tc_scan_filter *filter, tc_raw_reader read, void *context) {
    filter->read = read;
    filter->context = context;
    filter->raw = NULL;
    filter->raw_length = 0;
    filter->mode = IN_SCAN;
    filter->dropping = 0;
    filter->saw_ff = 0;
    filter->segment_left = 0;
    filter->marker_length = 0;
    filter->dropped_bytes = 0;
    memset(filter->unused_ac, 0, sizeof filter->unused_ac);
    memset(filter->dc_seen, 0, sizeof filter->dc_seen);
}

static int refill(tc_scan_filter *filter) {
    if (filter->raw_length == 0) filter->raw_length = filter->read(filter->context, &filter->raw);
    return filter->raw_length > 0;
}

static uint8_t take(tc_scan_filter *filter) {
    filter->raw_length--;
    return *filter->raw++;
}

// A progressive AC scan has exactly one component; it can go when that component's AC is never read and
// its DC has come. A kept first DC scan (Ss = 0, Ah = 0) marks its components' DC as come.
static int droppable(tc_scan_filter *filter, const uint8_t *sos, size_t length) {
    int components = sos[4];
    if (components < 1 || components > 4 || length != 2 + 6 + 2 * (size_t)components) return 0;
    int spectral_start = sos[5 + 2 * components], approximation_high = sos[7 + 2 * components] >> 4;
    if (spectral_start == 0) {
        if (approximation_high == 0)
            for (int i = 0; i < components; i++) filter->dc_seen[sos[5 + 2 * i]] = 1;
        return 0;
    }
    return components == 1 && filter->unused_ac[sos[5]] && filter->dc_seen[sos[5]];
}

// One step of marker reading: returns the bytes to emit (0 while the marker is incomplete).
static size_t read_marker(tc_scan_filter *filter, uint8_t *out) {
    uint8_t *marker = filter->marker;
    uint8_t byte = filter->raw[0];
    if (filter->marker_length == 0 && byte != 0xFF) {  // not a marker where one must be: libjpeg's call
        filter->mode = PASSING;
        return 0;
    }
    take(filter);
    if (filter->marker_length == 1 && byte == 0xFF) {  // fill byte before the code
        out[0] = 0xFF;
        return 1;
    }
    marker[filter->marker_length++] = byte;
    if (filter->marker_length < 2) return 0;
    int code = marker[1];
    if (code == EOI || code == SOI || code == TEM || (code >= 0xD0 && code <= 0xD7)) {  // no length field
        memcpy(out, marker, 2);
        filter->marker_length = 0;
        if (code == EOI) filter->mode = PASSING;
        return 2;
    }
    if (filter->marker_length < 4) return 0;
    size_t length = (size_t)marker[2] << 8 | marker[3];
    if (code != SOS || length < 2 || length + 2 > sizeof filter->marker) {
        // Another segment (tables, APPn, ...) is copied as it comes; a malformed SOS is left to libjpeg.
        memcpy(out, marker, 4);
        filter->marker_length = 0;
        if (code == SOS || length < 2) {
            filter->mode = PASSING;
        } else {
            filter->segment_left = length - 2;
            filter->mode = filter->segment_left ? IN_SEGMENT : IN_MARKER;
        }
        return 4;
    }
    if (filter->marker_length < length + 2) return 0;
    size_t count = filter->marker_length;
    filter->marker_length = 0;
    filter->mode = IN_SCAN;
    filter->saw_ff = 0;
    filter->dropping = droppable(filter, marker, count);
    if (filter->dropping) {
        filter->dropped_bytes += count;
        return 0;
    }
    memcpy(out, marker, count);
    return count;
}

// Entropy-coded data up to the next marker: 0xFF 0x00 is a stuffed byte, 0xFF 0xD0-0xD7 a restart marker,
// 0xFF 0xFF fill; any other 0xFF pair starts a marker and ends the scan.
static size_t read_scan(tc_scan_filter *filter, uint8_t *out, size_t space) {
    if (filter->saw_ff) {
        uint8_t byte = filter->raw[0];
        if (byte == 0xFF) {  // fill: the first 0xFF goes, the second still awaits its partner
            take(filter);
            if (filter->dropping) { filter->dropped_bytes++; return 0; }
            out[0] = 0xFF;
            return 1;
        }
        filter->saw_ff = 0;
        if (byte == 0x00 || (byte >= 0xD0 && byte <= 0xD7)) {
            take(filter);
            if (filter->dropping) { filter->dropped_bytes += 2; return 0; }
            out[0] = 0xFF;
            out[1] = byte;
            return 2;
        }
        // A marker: the scan is over. Its 0xFF is read again as the marker's first byte.
        filter->mode = IN_MARKER;
        filter->marker[0] = 0xFF;
        filter->marker_length = 1;
        return 0;
    }
    const uint8_t *ff = memchr(filter->raw, 0xFF, filter->raw_length);
    size_t run = ff ? (size_t)(ff - filter->raw) : filter->raw_length;
    if (filter->dropping) {
        filter->dropped_bytes += run;
    } else {
        if (run > space) run = space;
        memcpy(out, filter->raw, run);
    }
    filter->raw += run;
    filter->raw_length -= run;
    if (ff && filter->raw == ff) {
        take(filter);
        filter->saw_ff = 1;
    }
    return filter->dropping ? 0 : run;
}

size_t tc_scan_filter_fill(tc_scan_filter *filter, uint8_t *out, size_t capacity) {
    size_t count = 0;
    while (count < capacity && refill(filter)) {
        switch (filter->mode) {
        case IN_SCAN:
            count += read_scan(filter, out + count, capacity - count);
            break;
        case IN_MARKER:
            count += read_marker(filter, out + count);
            break;
        case IN_SEGMENT: {
            size_t run = filter->segment_left;
            if (run > filter->raw_length) run = filter->raw_length;
            if (run > capacity - count) run = capacity - count;
            memcpy(out + count, filter->raw, run);
            filter->raw += run;
            filter->raw_length -= run;
            filter->segment_left -= run;
            if (filter->segment_left == 0) filter->mode = IN_MARKER;
            count += run;
            break;
        }
        default: {  // PASSING
            size_t run = filter->raw_length < capacity - count ? filter->raw_length : capacity - count;
            memcpy(out + count, filter->raw, run);
            filter->raw += run;
            filter->raw_length -= run;
            count += run;
        }
        }
    }
    return count;
}
