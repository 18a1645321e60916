// C glue for SVG (librsvg 2.54 on cairo). Same conventions as CJpegPngGlue: a decoder points into the caller's
// bytes, every call returns a tc_status and leaves a message in the decoder on failure, no global state.
// External references are never followed: the handle has no base URI (librsvg then loads nothing but data: URLs)
// and no RSVG_HANDLE_FLAG_UNLIMITED (libxml2 keeps its limits on entities, depth and text size).
#ifndef THUMBCACHE_SVG_GLUE_H
#define THUMBCACHE_SVG_GLUE_H

#include <stddef.h>
#include <stdint.h>
#include "CJpegPngGlue.h"

typedef struct tc_svg_decoder tc_svg_decoder;

typedef struct {
    /// The document's natural size in pixels at 72 DPI, as libvips' svgload works it out (imgproxy's size): the
    /// width and height in absolute units, else one of them and the viewBox's aspect ratio, else the viewBox,
    /// else the size of what is drawn.
    double width, height;
} tc_svg_header;

/// Wraps `data` (not copied; it must outlive `tc_svg_read_header`, and is not used after it). Returns NULL only when out of memory.
tc_svg_decoder *tc_svg_decoder_create(const uint8_t *data, size_t size);
void tc_svg_decoder_destroy(tc_svg_decoder *decoder);
const char *tc_svg_message(const tc_svg_decoder *decoder);
/// Parses the whole document (librsvg reads it into its tree here) and works out its natural size. The handle then
/// renders any number of times (`tc_svg_render`), from one thread at a time.
tc_status tc_svg_read_header(tc_svg_decoder *decoder, tc_svg_header *header);
/// Renders the whole document fitted to `width` x `height` into `out` (RGBA, not premultiplied, rows `stride`
/// bytes apart, stride >= width * 4 and a multiple of 4). Sides over cairo's 32767 are TC_UNSUPPORTED.
tc_status tc_svg_render(tc_svg_decoder *decoder, int width, int height, uint8_t *out, size_t stride);

/// How many documents `tc_svg_read_header` has parsed on the calling thread (for tests: one parse per thumbnail).
unsigned long tc_svg_parses_on_this_thread(void);

#endif
