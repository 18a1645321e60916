#include "CJpegPngGlue.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <png.h>

void tc_free(void *pointer) { free(pointer); }

// MARK: JPEG

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char *message;
} jpeg_encode_error;

static void jpeg_encode_fail(j_common_ptr cinfo) {
    jpeg_encode_error *error = (jpeg_encode_error *)cinfo->err;
    cinfo->err->format_message(cinfo, error->message);
    longjmp(error->jump, 1);
}

// A JPEG marker holds at most 65533 bytes of payload; a larger block is left out rather than cut.
enum { JPEG_MARKER_CAPACITY = 65533 };

static void jpeg_write_prefixed(j_compress_ptr cinfo, const char *prefix, size_t prefix_size,
                                const uint8_t *bytes, size_t size) {
    if (!bytes || size == 0 || size + prefix_size > JPEG_MARKER_CAPACITY) return;
    jpeg_write_m_header(cinfo, JPEG_APP0 + 1, (unsigned int)(size + prefix_size));
    for (size_t i = 0; i < prefix_size; i++) jpeg_write_m_byte(cinfo, (unsigned char)prefix[i]);
    for (size_t i = 0; i < size; i++) jpeg_write_m_byte(cinfo, bytes[i]);
}

tc_status tc_jpeg_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels,
                         int quality, const tc_metadata *metadata, tc_encoded *out) {
    struct jpeg_compress_struct cinfo;
    jpeg_encode_error error;
    // volatile: modified after setjmp and read after longjmp.
    unsigned char *volatile buffer = NULL;
    unsigned long size = 0;
    memset(out, 0, sizeof *out);
    cinfo.err = jpeg_std_error(&error.base);
    error.base.error_exit = jpeg_encode_fail;
    error.message = out->message;
    if (setjmp(error.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return TC_CORRUPT;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, (unsigned char **)&buffer, &size);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = channels == 1 ? 1 : 3;
    cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);  // YCbCr 4:2:0, or one grey component
    jpeg_set_quality(&cinfo, quality, TRUE);
    cinfo.optimize_coding = TRUE;
    jpeg_start_compress(&cinfo, TRUE);
    if (metadata) {
        // Exif first, right after JFIF's APP0, where readers look for it.
        jpeg_write_prefixed(&cinfo, "Exif\0\0", 6, metadata->exif, metadata->exif_size);
        static const char xmp_prefix[] = "http://ns.adobe.com/xap/1.0/";
        jpeg_write_prefixed(&cinfo, xmp_prefix, sizeof xmp_prefix, metadata->xmp, metadata->xmp_size);
        if (metadata->icc && metadata->icc_size) jpeg_write_icc_profile(&cinfo, metadata->icc, (unsigned int)metadata->icc_size);
    }
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    out->data = buffer;
    out->size = size;
    return TC_OK;
}

// MARK: PNG

typedef struct {
    tc_encoded *out;
    size_t capacity;
} png_sink;

static void png_encode_fail(png_structp png, png_const_charp text) {
    png_sink *sink = png_get_error_ptr(png);
    snprintf(sink->out->message, sizeof sink->out->message, "%s", text);
    png_longjmp(png, 1);
}

static void png_encode_warning(png_structp png, png_const_charp text) { (void)png; (void)text; }

static void png_write_to_memory(png_structp png, png_bytep bytes, png_size_t length) {
    png_sink *sink = png_get_io_ptr(png);
    tc_encoded *out = sink->out;
    if (length > sink->capacity - out->size) {
        size_t capacity = sink->capacity ? sink->capacity : 4096;
        while (length > capacity - out->size) capacity *= 2;
        uint8_t *grown = realloc(out->data, capacity);
        if (!grown) png_error(png, "out of memory while writing PNG");
        out->data = grown;
        sink->capacity = capacity;
    }
    memcpy(out->data + out->size, bytes, length);
    out->size += length;
}

static void png_flush_nothing(png_structp png) { (void)png; }

tc_status tc_png_encode(const uint8_t *pixels, int width, int height, size_t stride,
                        int channels, const tc_metadata *metadata, tc_encoded *out) {
    png_sink sink = {out, 0};
    memset(out, 0, sizeof *out);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, png_encode_fail, png_encode_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        snprintf(out->message, sizeof out->message, "out of memory creating PNG writer");
        return TC_NO_MEMORY;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(out->data);
        out->data = NULL;
        out->size = 0;
        return TC_CORRUPT;
    }
    png_set_write_fn(png, &sink, png_write_to_memory, png_flush_nothing);
    // A profile libpng finds questionable (e.g. a known-buggy sRGB one) is a warning, not a failed encode.
    png_set_benign_errors(png, 1);
    int color_type = channels == 1 ? PNG_COLOR_TYPE_GRAY : channels == 2 ? PNG_COLOR_TYPE_GRAY_ALPHA
        : channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB;
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, color_type,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_text xmp_text;
    if (metadata) {
        if (metadata->icc && metadata->icc_size)
            png_set_iCCP(png, info, "icc", PNG_COMPRESSION_TYPE_BASE, metadata->icc, (png_uint_32)metadata->icc_size);
        if (metadata->exif && metadata->exif_size)
            png_set_eXIf_1(png, info, (png_uint_32)metadata->exif_size, (png_bytep)metadata->exif);
        if (metadata->xmp && metadata->xmp_size) {
            memset(&xmp_text, 0, sizeof xmp_text);
            xmp_text.compression = PNG_ITXT_COMPRESSION_NONE;
            xmp_text.key = "XML:com.adobe.xmp";
            xmp_text.text = (char *)metadata->xmp;
            xmp_text.itxt_length = metadata->xmp_size;
            png_set_text(png, info, &xmp_text, 1);
        }
    }
    png_write_info(png, info);
    for (int y = 0; y < height; y++) png_write_row(png, pixels + (size_t)y * stride);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return TC_OK;
}
