// GIF: giflib parses the records; the first frame's LZW data is decoded here, because giflib's own
// decompressor accepts some invalid codes silently and pads a short frame without complaint. Every
// code is checked against the table, and a frame whose data ends early is refused.
#include "CWebpGifAvifGlue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gif_lib.h>

struct tc_gif_decoder {
    const uint8_t *data;
    size_t size, offset;
    int ran_out;             // a read asked for bytes past the end: the file is truncated
    GifFileType *gif;
    int have_image;          // the first image descriptor has been read
    int transparent_index;
    char message[TC_MESSAGE_CAPACITY];
};

static tc_status fail(tc_gif_decoder *decoder, tc_status status, const char *text) {
    snprintf(decoder->message, sizeof decoder->message, "%s", text);
    return status;
}

/// giflib reports a short read as a generic read failure; the flag tells truncation apart.
static tc_status gif_failure(tc_gif_decoder *decoder, int code) {
    if (decoder->ran_out) return fail(decoder, TC_TRUNCATED, "file ends before the image data is complete");
    if (code == D_GIF_ERR_NOT_ENOUGH_MEM) return fail(decoder, TC_NO_MEMORY, "out of memory");
    if (code == D_GIF_ERR_READ_FAILED) {
        // What giflib says when it refuses a field it read (e.g. an LZW code size above 8).
        return fail(decoder, TC_CORRUPT, "invalid GIF header field (e.g. LZW code size outside 2..8)");
    }
    const char *text = GifErrorString(code);
    return fail(decoder, TC_CORRUPT, text ? text : "GIF decoder error");
}

static int read_memory(GifFileType *gif, GifByteType *out, int length) {
    tc_gif_decoder *decoder = gif->UserData;
    size_t available = decoder->size - decoder->offset;
    size_t count = length < 0 ? 0 : (size_t)length;
    if (count > available) {
        count = available;
        decoder->ran_out = 1;
    }
    memcpy(out, decoder->data + decoder->offset, count);
    decoder->offset += count;
    return (int)count;
}

tc_gif_decoder *tc_gif_decoder_create(const uint8_t *data, size_t size) {
    tc_gif_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    decoder->data = data;
    decoder->size = size;
    decoder->transparent_index = -1;
    return decoder;
}

void tc_gif_decoder_destroy(tc_gif_decoder *decoder) {
    if (!decoder) return;
    if (decoder->gif) {
        int error = 0;
        DGifCloseFile(decoder->gif, &error);
    }
    free(decoder);
}

const char *tc_gif_message(const tc_gif_decoder *decoder) { return decoder->message; }

tc_status tc_gif_read_header(tc_gif_decoder *decoder, tc_gif_header *header) {
    memset(header, 0, sizeof *header);
    int error = 0;
    decoder->gif = DGifOpen(decoder, read_memory, &error);
    if (!decoder->gif) {
        if (error == D_GIF_ERR_NOT_GIF_FILE) return fail(decoder, TC_CORRUPT, "not a GIF file");
        return gif_failure(decoder, error);
    }
    GifFileType *gif = decoder->gif;
    // Walk the records to the first image descriptor, keeping the last Graphic Control Extension.
    for (;;) {
        GifRecordType type;
        if (DGifGetRecordType(gif, &type) == GIF_ERROR) return gif_failure(decoder, gif->Error);
        if (type == IMAGE_DESC_RECORD_TYPE) break;
        if (type == TERMINATE_RECORD_TYPE) return fail(decoder, TC_CORRUPT, "GIF file has no image");
        if (type != EXTENSION_RECORD_TYPE) return fail(decoder, TC_CORRUPT, "unexpected GIF record");
        int code = 0;
        GifByteType *block = NULL;
        if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) return gif_failure(decoder, gif->Error);
        if (code == GRAPHICS_EXT_FUNC_CODE && block && block[0] >= 4) {
            decoder->transparent_index = (block[1] & 0x01) ? block[4] : -1;
        }
        while (block) {
            if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) return gif_failure(decoder, gif->Error);
        }
    }
    if (DGifGetImageDesc(gif) == GIF_ERROR) return gif_failure(decoder, gif->Error);
    decoder->have_image = 1;
    GifImageDesc *image = &gif->Image;
    header->screen_width = gif->SWidth;
    header->screen_height = gif->SHeight;
    header->frame_x = image->Left;
    header->frame_y = image->Top;
    header->frame_width = image->Width;
    header->frame_height = image->Height;
    header->interlaced = image->Interlace != 0;
    header->transparent_index = decoder->transparent_index;
    if (image->Width <= 0 || image->Height <= 0) return fail(decoder, TC_CORRUPT, "first GIF frame is empty");
    int covers = image->Left == 0 && image->Top == 0 && image->Width >= gif->SWidth && image->Height >= gif->SHeight;
    header->has_alpha = decoder->transparent_index >= 0 || !covers;
    return TC_OK;
}

void tc_gif_palette(const tc_gif_decoder *decoder, uint8_t palette[768]) {
    memset(palette, 0, 768);
    const ColorMapObject *map = NULL;
    if (decoder->gif && decoder->have_image) {
        map = decoder->gif->Image.ColorMap ? decoder->gif->Image.ColorMap : decoder->gif->SColorMap;
    }
    if (!map) {
        // No table at all: indices are grey levels (what Pillow shows, mode L).
        for (int i = 0; i < 256; i++) palette[i * 3] = palette[i * 3 + 1] = palette[i * 3 + 2] = (uint8_t)i;
        return;
    }
    int count = map->ColorCount < 256 ? map->ColorCount : 256;
    for (int i = 0; i < count; i++) {
        palette[i * 3] = map->Colors[i].Red;
        palette[i * 3 + 1] = map->Colors[i].Green;
        palette[i * 3 + 2] = map->Colors[i].Blue;
    }
}

/// Where the frame's n-th decoded row goes: interlaced frames arrive in four passes.
static int frame_row(int n, int height, int interlaced) {
    if (!interlaced) return n;
    static const int start[4] = {0, 4, 2, 1}, step[4] = {8, 8, 4, 2};
    for (int pass = 0; pass < 4; pass++) {
        int rows = start[pass] < height ? (height - start[pass] + step[pass] - 1) / step[pass] : 0;
        if (n < rows) return start[pass] + n * step[pass];
        n -= rows;
    }
    return -1;
}

enum { LZW_MAX_CODES = 4096 };

typedef struct {
    uint16_t prefix[LZW_MAX_CODES];
    uint8_t suffix[LZW_MAX_CODES];
    uint8_t first[LZW_MAX_CODES];   // first byte of each code's string
    uint16_t length[LZW_MAX_CODES];
    uint8_t stack[LZW_MAX_CODES];
} lzw_table;

tc_status tc_gif_decode(tc_gif_decoder *decoder, uint8_t *indices, uint8_t *covered) {
    if (!decoder->have_image) return fail(decoder, TC_CORRUPT, "header not read");
    GifFileType *gif = decoder->gif;
    const GifImageDesc *image = &gif->Image;
    const int screen_width = gif->SWidth, screen_height = gif->SHeight;
    const long long total = (long long)image->Width * image->Height;
    int min_code_size = 0;
    GifByteType *block = NULL;
    if (DGifGetCode(gif, &min_code_size, &block) == GIF_ERROR) return gif_failure(decoder, gif->Error);
    if (min_code_size < 2 || min_code_size > 8) return fail(decoder, TC_CORRUPT, "LZW code size outside 2..8");
    lzw_table *table = malloc(sizeof *table);
    if (!table) return fail(decoder, TC_NO_MEMORY, "out of memory");
    const int clear = 1 << min_code_size, end = clear + 1;
    for (int i = 0; i < clear; i++) {
        table->suffix[i] = table->first[i] = (uint8_t)i;
        table->length[i] = 1;
    }
    int next = end + 1, code_size = min_code_size + 1, previous = -1, ended = 0;
    uint32_t bits = 0;
    int bit_count = 0;
    long long written = 0;
    int row = frame_row(0, image->Height, image->Interlace), column = 0;
    tc_status status = TC_OK;
    while (block && !ended && status == TC_OK) {
        int block_length = block[0];
        for (int i = 1; i <= block_length && !ended; i++) {
            bits |= (uint32_t)block[i] << bit_count;
            bit_count += 8;
            while (bit_count >= code_size && !ended) {
                int code = (int)(bits & ((1u << code_size) - 1));
                bits >>= code_size;
                bit_count -= code_size;
                if (code == clear) {
                    next = end + 1;
                    code_size = min_code_size + 1;
                    previous = -1;
                    continue;
                }
                if (code == end) {
                    ended = 1;
                    break;
                }
                int emit;  // the code whose string is output
                if (previous < 0) {
                    if (code >= clear) {
                        status = fail(decoder, TC_CORRUPT, "invalid LZW code after a clear code");
                        ended = 1;
                        break;
                    }
                    emit = code;
                } else if (code < next) {
                    emit = code;
                    if (next < LZW_MAX_CODES) {
                        table->prefix[next] = (uint16_t)previous;
                        table->suffix[next] = table->first[code];
                        table->first[next] = table->first[previous];
                        table->length[next] = (uint16_t)(table->length[previous] + 1);
                        next++;
                    }
                } else if (code == next && next < LZW_MAX_CODES) {
                    // The "KwKwK" case: the string of previous plus its own first byte.
                    table->prefix[next] = (uint16_t)previous;
                    table->suffix[next] = table->first[previous];
                    table->first[next] = table->first[previous];
                    table->length[next] = (uint16_t)(table->length[previous] + 1);
                    emit = next++;
                } else {
                    status = fail(decoder, TC_CORRUPT, "invalid LZW code (not yet in the table)");
                    ended = 1;
                    break;
                }
                if (next == (1 << code_size) && code_size < 12) code_size++;
                previous = code;
                // Unwind the string (stored back to front) and place it.
                int length = table->length[emit];
                for (int k = length - 1, c = emit; k >= 0; k--, c = table->prefix[c]) table->stack[k] = table->suffix[c];
                for (int k = 0; k < length && written < total; k++, written++) {
                    int x = image->Left + column, y = image->Top + row;
                    if (row >= 0 && x < screen_width && y < screen_height) {
                        size_t at = (size_t)y * (size_t)screen_width + (size_t)x;
                        indices[at] = table->stack[k];
                        covered[at] = 1;
                    }
                    if (++column == image->Width) {
                        column = 0;
                        row = frame_row((int)((written + 1) / image->Width), image->Height, image->Interlace);
                    }
                }
            }
        }
        if (ended) break;
        if (DGifGetCodeNext(gif, &block) == GIF_ERROR) {
            status = gif_failure(decoder, gif->Error);
            break;
        }
    }
    free(table);
    if (status != TC_OK) return status;
    if (written < total) {
        return decoder->ran_out || !block ? fail(decoder, TC_TRUNCATED, "GIF image data ends before the frame is complete")
                                          : fail(decoder, TC_CORRUPT, "GIF image data ends before the frame is complete");
    }
    return TC_OK;
}
