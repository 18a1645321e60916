#include "CImageSupport.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>

struct tc_png_decoder {
    png_structp png;
    png_infop info;
    tc_status failure;
    char message[TC_MESSAGE_CAPACITY];
    const uint8_t *data;
    size_t size, offset;
    FILE *file;  // the source for read_from_file
};

static const char truncated_message[] = "file ends before the image data is complete";

static void on_error(png_structp png, png_const_charp text) {
    tc_png_decoder *decoder = png_get_error_ptr(png);
    if (decoder->failure == TC_OK) decoder->failure = TC_CORRUPT;
    snprintf(decoder->message, sizeof decoder->message, "%s", text);
    png_longjmp(png, 1);
}

// Warnings are ancillary-chunk problems (bad iCCP, CRC error in a text chunk) that libpng
// already recovers from by dropping the chunk; the pixels are still exact.
static void on_warning(png_structp png, png_const_charp text) { (void)png; (void)text; }

static void read_from_memory(png_structp png, png_bytep out, png_size_t length) {
    tc_png_decoder *decoder = png_get_io_ptr(png);
    if (length > decoder->size - decoder->offset) {
        decoder->failure = TC_TRUNCATED;
        png_error(png, truncated_message);
    }
    memcpy(out, decoder->data + decoder->offset, length);
    decoder->offset += length;
}

static void read_from_file(png_structp png, png_bytep out, png_size_t length) {
    tc_png_decoder *decoder = png_get_io_ptr(png);
    FILE *file = decoder->file;
    if (fread(out, 1, length, file) != length) {
        decoder->failure = ferror(file) ? TC_CORRUPT : TC_TRUNCATED;
        png_error(png, ferror(file) ? "read error" : truncated_message);
    }
}

static tc_png_decoder *create(const uint8_t *data, size_t size, FILE *file, png_rw_ptr reader) {
    tc_png_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    decoder->data = data;
    decoder->size = size;
    decoder->file = file;
    decoder->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, decoder, on_error, on_warning);
    if (decoder->png) decoder->info = png_create_info_struct(decoder->png);
    if (!decoder->info) {
        tc_png_decoder_destroy(decoder);
        return NULL;
    }
    png_set_read_fn(decoder->png, decoder, reader);
    return decoder;
}

tc_png_decoder *tc_png_decoder_create(const uint8_t *data, size_t size) {
    return create(data, size, NULL, read_from_memory);
}

tc_png_decoder *tc_png_decoder_create_file(FILE *file) { return create(NULL, 0, file, read_from_file); }

void tc_png_decoder_destroy(tc_png_decoder *decoder) {
    if (!decoder) return;
    if (decoder->png) png_destroy_read_struct(&decoder->png, decoder->info ? &decoder->info : NULL, NULL);
    free(decoder);
}

const char *tc_png_message(const tc_png_decoder *decoder) { return decoder->message; }

tc_status tc_png_read_header(tc_png_decoder *decoder, tc_png_header *header) {
    png_structp png = decoder->png;
    png_infop info = decoder->info;
    if (setjmp(png_jmpbuf(png))) return decoder->failure;
    png_read_info(png, info);
    header->width = (int)png_get_image_width(png, info);
    header->height = (int)png_get_image_height(png, info);
    header->bit_depth = png_get_bit_depth(png, info);
    header->color_type = png_get_color_type(png, info);
    header->interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
    header->has_alpha = (header->color_type & PNG_COLOR_MASK_ALPHA) != 0
        || png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    return TC_OK;
}

const uint8_t *tc_png_exif(tc_png_decoder *decoder, size_t *length) {
    *length = 0;
#ifdef PNG_eXIf_SUPPORTED
    png_uint_32 count = 0;
    png_bytep exif = NULL;
    if (png_get_eXIf_1(decoder->png, decoder->info, &count, &exif) && exif) {
        *length = count;
        return exif;
    }
#endif
    return NULL;
}

const uint8_t *tc_png_icc(tc_png_decoder *decoder, size_t *length) {
    *length = 0;
    if (png_get_valid(decoder->png, decoder->info, PNG_INFO_sRGB)) return NULL;
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 size = 0;
    if (!png_get_iCCP(decoder->png, decoder->info, &name, &compression, &profile, &size) || !profile) return NULL;
    *length = size;
    return profile;
}

tc_status tc_png_start(tc_png_decoder *decoder, int *channels, int *passes) {
    png_structp png = decoder->png;
    png_infop info = decoder->info;
    if (setjmp(png_jmpbuf(png))) return decoder->failure;
    png_set_expand(png);         // palette -> RGB, low-bit gray -> 8 bit, tRNS -> alpha
    png_set_scale_16(png);       // 16 -> 8 bit with rounding, not truncation
    png_set_gray_to_rgb(png);
    *passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    *channels = png_get_channels(png, info);
    if (png_get_bit_depth(png, info) != 8 || (*channels != 3 && *channels != 4)) {
        snprintf(decoder->message, sizeof decoder->message, "unexpected PNG pixel layout after expansion");
        return TC_UNSUPPORTED;
    }
    return TC_OK;
}

tc_status tc_png_read_row(tc_png_decoder *decoder, uint8_t *row) {
    if (setjmp(png_jmpbuf(decoder->png))) return decoder->failure;
    png_read_row(decoder->png, row, NULL);
    return TC_OK;
}

tc_status tc_png_finish(tc_png_decoder *decoder) {
    if (setjmp(png_jmpbuf(decoder->png))) return decoder->failure;
    png_read_end(decoder->png, NULL);
    return TC_OK;
}
