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

tc_status tc_jpeg_encode(const uint8_t *pixels, int width, int height, size_t stride,
                         int quality, tc_encoded *out) {
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
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);  // YCbCr 4:2:0
    jpeg_set_quality(&cinfo, quality, TRUE);
    cinfo.optimize_coding = TRUE;
    jpeg_start_compress(&cinfo, TRUE);
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
                        int channels, tc_encoded *out) {
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
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8,
                 channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < height; y++) png_write_row(png, pixels + (size_t)y * stride);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return TC_OK;
}
