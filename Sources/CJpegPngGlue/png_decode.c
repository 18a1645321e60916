#include "CJpegPngGlue.h"

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
    // The chunk structure of the bytes handed to libpng, followed as they pass (libpng reads in pieces of
    // any size): it tells IDAT payload from the rest, to bound the image data read after the last row, and
    // sees each chunk's type before libpng handles it.
    struct {
        enum { PART_SIGNATURE, PART_HEADER, PART_DATA, PART_CRC } part;
        uint8_t header[8];
        size_t header_filled;
        uint64_t remaining;
        int is_idat;
    } chunk;
    uint64_t idat_bytes;     // IDAT payload handed to libpng so far
    uint64_t idat_limit;     // UINT64_MAX until the call that reads the last row
    uint64_t last_row_allowance;
    uint64_t rows_left;      // row calls (rows x passes) before the last one
    int colour_chunks;       // iCCP and sRGB chunks seen
};

static const char truncated_message[] = "file ends before the image data is complete";

// libpng inflates whatever compressed data follows the last row, 1 KiB at a time, to the end of the
// stream: a few hundred KB of zeros compressed behind a tiny image cost seconds (deflate reaches 1:1032).
// Past the last row only its own data, libpng's read-ahead and this much more may come.
enum { EXCESS_IDAT_ALLOWANCE = 1024 };

// Chunk sizes above this are refused by libpng (its own default, set explicitly for builds configured
// otherwise); it also bounds a decompressed iCCP profile.
enum { CHUNK_MALLOC_MAX = 8000000 };

// Ancillary chunks libpng may keep (sPLT, unknown): we keep none, but bound it in case a list changes.
enum { CHUNK_CACHE_MAX = 32 };

// libpng takes a second iCCP or sRGB chunk as a broken colour space and drops the profile it has, so a chunk
// appended to a tagged image would turn its colours wrong: the first one counts, the others are skipped unread.
static void on_chunk_header(png_structp png, tc_png_decoder *decoder, const uint8_t *type) {
    static const png_byte colour_chunks[] = {'i', 'C', 'C', 'P', 0, 's', 'R', 'G', 'B', 0};
    if (memcmp(type, "iCCP", 4) != 0 && memcmp(type, "sRGB", 4) != 0) return;
    // Set before libpng looks up how to handle the chunk whose header it is reading.
    if (decoder->colour_chunks++ == 1) png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, colour_chunks, 2);
}

static void track(png_structp png, tc_png_decoder *decoder, const uint8_t *bytes, size_t length) {
    while (length > 0) {
        if (decoder->chunk.part == PART_HEADER) {
            size_t take = 8 - decoder->chunk.header_filled;
            if (take > length) take = length;
            memcpy(decoder->chunk.header + decoder->chunk.header_filled, bytes, take);
            decoder->chunk.header_filled += take;
            bytes += take;
            length -= take;
            if (decoder->chunk.header_filled < 8) return;
            const uint8_t *h = decoder->chunk.header;
            decoder->chunk.remaining = (uint64_t)h[0] << 24 | (uint64_t)h[1] << 16 | (uint64_t)h[2] << 8 | h[3];
            decoder->chunk.is_idat = memcmp(h + 4, "IDAT", 4) == 0;
            on_chunk_header(png, decoder, h + 4);
            decoder->chunk.part = PART_DATA;
            decoder->chunk.header_filled = 0;
            continue;
        }
        size_t take = decoder->chunk.remaining < length ? (size_t)decoder->chunk.remaining : length;
        if (decoder->chunk.part == PART_DATA && decoder->chunk.is_idat) decoder->idat_bytes += take;
        decoder->chunk.remaining -= take;
        bytes += take;
        length -= take;
        if (decoder->chunk.remaining == 0) {
            if (decoder->chunk.part == PART_DATA) {
                decoder->chunk.part = PART_CRC;
                decoder->chunk.remaining = 4;
            } else {
                decoder->chunk.part = PART_HEADER;  // after the signature or a CRC
            }
        }
    }
}

static void delivered(png_structp png, tc_png_decoder *decoder, const uint8_t *bytes, size_t length) {
    track(png, decoder, bytes, length);
    if (decoder->idat_bytes > decoder->idat_limit) {
        decoder->failure = TC_CORRUPT;
        png_error(png, "compressed image data goes on past the end of the image (more than 1 KiB after the last "
                       "row; a decompression bomb?)");
    }
}

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
    delivered(png, decoder, out, length);
}

static void read_from_file(png_structp png, png_bytep out, png_size_t length) {
    tc_png_decoder *decoder = png_get_io_ptr(png);
    FILE *file = decoder->file;
    if (fread(out, 1, length, file) != length) {
        decoder->failure = ferror(file) ? TC_CORRUPT : TC_TRUNCATED;
        png_error(png, ferror(file) ? "read error" : truncated_message);
    }
    delivered(png, decoder, out, length);
}

static tc_png_decoder *create(const uint8_t *data, size_t size, FILE *file, png_rw_ptr reader) {
    tc_png_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    decoder->data = data;
    decoder->size = size;
    decoder->file = file;
    decoder->chunk.part = PART_SIGNATURE;
    decoder->chunk.remaining = 8;
    decoder->idat_limit = UINT64_MAX;
    decoder->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, decoder, on_error, on_warning);
    if (decoder->png) decoder->info = png_create_info_struct(decoder->png);
    if (!decoder->info) {
        tc_png_decoder_destroy(decoder);
        return NULL;
    }
    png_set_read_fn(decoder->png, decoder, reader);
    // Only the chunks we use are read; every other one (text, zTXt/iTXt included, wherever it is) is skipped
    // unread: text chunks inflate without bound and are cached, 1.5 MB of zTXt took 1.5 GB and 17 s.
    // Critical chunks (IHDR, PLTE, tRNS, IDAT, IEND) are always read.
    static const png_byte used[] = {'i', 'C', 'C', 'P', 0, 's', 'R', 'G', 'B', 0, 'e', 'X', 'I', 'f', 0};
    png_set_keep_unknown_chunks(decoder->png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
    png_set_keep_unknown_chunks(decoder->png, PNG_HANDLE_CHUNK_AS_DEFAULT, used, (int)(sizeof used / 5));
    png_set_chunk_malloc_max(decoder->png, CHUNK_MALLOC_MAX);
    png_set_chunk_cache_max(decoder->png, CHUNK_CACHE_MAX);
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
    // The row as stored (before expansion); compressed, it can take up to 15 bits a byte (long Huffman codes).
    uint64_t stored_row = (uint64_t)png_get_rowbytes(png, info) + 1;
    decoder->last_row_allowance = 2 * stored_row + PNG_IDAT_READ_SIZE + 2 * EXCESS_IDAT_ALLOWANCE;
    decoder->rows_left = (uint64_t)png_get_image_height(png, info) * (uint64_t)*passes - 1;
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
    // libpng inflates the rest of the stream inside the call that reads the last row.
    if (decoder->rows_left == 0 && decoder->idat_limit == UINT64_MAX)
        decoder->idat_limit = decoder->idat_bytes + decoder->last_row_allowance;
    else if (decoder->rows_left > 0)
        decoder->rows_left--;
    png_read_row(decoder->png, row, NULL);
    return TC_OK;
}

tc_status tc_png_finish(tc_png_decoder *decoder) {
    if (setjmp(png_jmpbuf(decoder->png))) return decoder->failure;
    png_read_end(decoder->png, NULL);
    return TC_OK;
}
