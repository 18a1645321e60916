#include "CSVGGlue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <librsvg/rsvg.h>
#include <cairo.h>
#include <gio/gio.h>

/// Parses (librsvg handles built from a document) made on the calling thread: read by tests to check that a thumbnail
/// parses its SVG once (`OpenedImage`). Per thread, so tests running at once do not count each other's parses; one
/// increment per parse, nothing else.
static _Thread_local unsigned long parses_on_this_thread;

unsigned long tc_svg_parses_on_this_thread(void) { return parses_on_this_thread; }

struct tc_svg_decoder {
    /// The caller's bytes, until the parse has read them (NULL after: the handle holds the whole document).
    const uint8_t *data;
    size_t size;
    RsvgHandle *handle;
    char message[TC_MESSAGE_CAPACITY];
};

static tc_status fail(tc_svg_decoder *decoder, tc_status status, const char *text) {
    snprintf(decoder->message, sizeof decoder->message, "%s", text);
    return status;
}

/// Takes a GError's text as the message and frees it.
static tc_status fail_with(tc_svg_decoder *decoder, tc_status status, const char *what, GError *error) {
    snprintf(decoder->message, sizeof decoder->message, "%s%s%s", what, error ? ": " : "", error ? error->message : "");
    if (error) g_error_free(error);
    return status;
}

tc_svg_decoder *tc_svg_decoder_create(const uint8_t *data, size_t size) {
    tc_svg_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    decoder->data = data;
    decoder->size = size;
    return decoder;
}

void tc_svg_decoder_destroy(tc_svg_decoder *decoder) {
    if (!decoder) return;
    if (decoder->handle) g_object_unref(decoder->handle);
    free(decoder);
}

const char *tc_svg_message(const tc_svg_decoder *decoder) { return decoder->message; }

/// A CSS length in pixels at `dpi` (librsvg's default font size, 12, for em and ex); 0 for percentages, which need
/// a viewport the document does not have.
static double length_in_pixels(RsvgLength length, double dpi) {
    switch (length.unit) {
    case RSVG_UNIT_PX: return length.length;
    case RSVG_UNIT_EM: return length.length * 12;
    case RSVG_UNIT_EX: return length.length * 6;
    case RSVG_UNIT_IN: return length.length * dpi;
    case RSVG_UNIT_CM: return length.length * dpi / 2.54;
    case RSVG_UNIT_MM: return length.length * dpi / 25.4;
    case RSVG_UNIT_PT: return length.length * dpi / 72;
    case RSVG_UNIT_PC: return length.length * dpi / 6;
    default: return 0;
    }
}

tc_status tc_svg_read_header(tc_svg_decoder *decoder, tc_svg_header *header) {
    // A memory stream over the caller's bytes; no base file, so relative and file: references resolve nowhere.
    GInputStream *stream = g_memory_input_stream_new_from_data(decoder->data, (gssize)decoder->size, NULL);
    if (!stream) return fail(decoder, TC_NO_MEMORY, "out of memory");
    GError *error = NULL;
    parses_on_this_thread++;
    decoder->handle = rsvg_handle_new_from_stream_sync(stream, NULL, RSVG_HANDLE_FLAGS_NONE, NULL, &error);
    g_object_unref(stream);
    // librsvg has read the whole stream: nothing of the caller's bytes is used again, so an open document may outlive
    // them (`SVGDocument`, kept from probe to render by `OpenedImage`).
    decoder->data = NULL;
    decoder->size = 0;
    if (!decoder->handle) return fail_with(decoder, TC_CORRUPT, "librsvg cannot read the SVG", error);

    const double dpi = 72;  // libvips' natural size (imgproxy's): 1in is 72 px
    rsvg_handle_set_dpi(decoder->handle, dpi);
    double width = 0, height = 0;
    if (!rsvg_handle_get_intrinsic_size_in_pixels(decoder->handle, &width, &height)) {
        gboolean has_width = FALSE, has_height = FALSE, has_viewbox = FALSE;
        RsvgLength css_width = {0}, css_height = {0};
        RsvgRectangle viewbox = {0};
        rsvg_handle_get_intrinsic_dimensions(decoder->handle, &has_width, &css_width, &has_height, &css_height,
                                             &has_viewbox, &viewbox);
        width = length_in_pixels(css_width, dpi);
        height = length_in_pixels(css_height, dpi);
        int usable_viewbox = has_viewbox && viewbox.width > 0 && viewbox.height > 0;
        if (width > 0 && height > 0) {
        } else if (width > 0 && usable_viewbox) {
            height = width * viewbox.height / viewbox.width;
        } else if (height > 0 && usable_viewbox) {
            width = height * viewbox.width / viewbox.height;
        } else if (usable_viewbox) {
            width = viewbox.width;
            height = viewbox.height;
        }
        if (!(width > 0 && height > 0)) {
            // Neither a size nor a viewBox: the size of what is drawn (librsvg measures the root by itself), as libvips.
            RsvgRectangle ink = {0};
            if (!rsvg_handle_get_geometry_for_element(decoder->handle, NULL, &ink, NULL, &error)) {
                return fail_with(decoder, TC_CORRUPT, "the SVG has no size and its extent cannot be measured", error);
            }
            width = ink.x + ink.width;
            height = ink.y + ink.height;
        }
    }
    // NaN and infinities fail these comparisons too.
    if (!(width >= 0.5 && height >= 0.5 && width < 1e9 && height < 1e9)) {
        return fail(decoder, TC_CORRUPT, "the SVG's size is zero, negative or not a number");
    }
    header->width = width;
    header->height = height;
    return TC_OK;
}

tc_status tc_svg_render(tc_svg_decoder *decoder, int width, int height, uint8_t *out, size_t stride) {
    if (width <= 0 || height <= 0 || width > 32767 || height > 32767) {
        return fail(decoder, TC_UNSUPPORTED, "an SVG is rendered at most 32767 pixels a side (cairo's limit)");
    }
    if (stride < (size_t)width * 4 || stride % 4 != 0 || stride > INT32_MAX) {
        return fail(decoder, TC_UNSUPPORTED, "bad row stride for the SVG render");
    }
    memset(out, 0, stride * (size_t)height);
    cairo_surface_t *surface = cairo_image_surface_create_for_data(out, CAIRO_FORMAT_ARGB32, width, height, (int)stride);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(surface);
        return fail(decoder, TC_NO_MEMORY, "cairo cannot make the render surface");
    }
    cairo_t *cr = cairo_create(surface);
    RsvgRectangle viewport = {0, 0, width, height};
    GError *error = NULL;
    gboolean drawn = rsvg_handle_render_document(decoder->handle, cr, &viewport, &error);
    cairo_status_t status = cairo_status(cr);
    cairo_destroy(cr);
    cairo_surface_flush(surface);
    cairo_surface_destroy(surface);
    if (!drawn) return fail_with(decoder, TC_CORRUPT, "librsvg cannot render the SVG", error);
    if (status == CAIRO_STATUS_NO_MEMORY) return fail(decoder, TC_NO_MEMORY, "cairo ran out of memory rendering the SVG");

    // Cairo's ARGB32 is premultiplied, one native-endian 32-bit word per pixel: to RGBA, unpremultiplied.
    for (int y = 0; y < height; y++) {
        uint8_t *row = out + (size_t)y * stride;
        for (int x = 0; x < width; x++) {
            uint32_t pixel;
            memcpy(&pixel, row + 4 * x, 4);
            uint32_t a = pixel >> 24, r = (pixel >> 16) & 0xFF, g = (pixel >> 8) & 0xFF, b = pixel & 0xFF;
            if (a != 0 && a != 255) {
                r = (r * 255 + a / 2) / a;
                g = (g * 255 + a / 2) / a;
                b = (b * 255 + a / 2) / a;
                if (r > 255) r = 255;
                if (g > 255) g = 255;
                if (b > 255) b = 255;
            }
            uint8_t *p = row + 4 * x;
            p[0] = (uint8_t)r; p[1] = (uint8_t)g; p[2] = (uint8_t)b; p[3] = (uint8_t)a;
        }
    }
    return TC_OK;
}
