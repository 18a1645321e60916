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
    int have_image;          // an image descriptor has been read and its data not yet decoded
    int transparent_index;
    int disposal, delay_cs;  // the Graphic Control Extension before the current image
    int loop_count;          // NETSCAPE2.0 loop count (0: forever), -1 when the file has none
    GifByteType *block;      // the current image's next data sub-block, while one is left unread
    int data_pending;        // the current image's data has not been read to its end
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
    decoder->loop_count = -1;
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

/// Walks the records to the next image descriptor, keeping the last Graphic Control Extension's transparency,
/// disposal and delay and a NETSCAPE2.0 loop count. `*found` is 0 at the trailer (or, after the first image, at
/// the end of the data: a file cut between frames ends there).
static tc_status walk_to_image(tc_gif_decoder *decoder, int *found) {
    GifFileType *gif = decoder->gif;
    *found = 0;
    decoder->transparent_index = -1;
    decoder->disposal = 0;
    decoder->delay_cs = 0;
    for (;;) {
        GifRecordType type;
        if (DGifGetRecordType(gif, &type) == GIF_ERROR) return gif_failure(decoder, gif->Error);
        if (type == IMAGE_DESC_RECORD_TYPE) break;
        if (type == TERMINATE_RECORD_TYPE) return TC_OK;
        if (type != EXTENSION_RECORD_TYPE) return fail(decoder, TC_CORRUPT, "unexpected GIF record");
        int code = 0;
        GifByteType *block = NULL;
        if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) return gif_failure(decoder, gif->Error);
        int netscape = 0;
        if (code == GRAPHICS_EXT_FUNC_CODE && block && block[0] >= 4) {
            decoder->transparent_index = (block[1] & 0x01) ? block[4] : -1;
            decoder->disposal = (block[1] >> 2) & 0x07;
            decoder->delay_cs = block[2] | (block[3] << 8);
        }
        if (code == APPLICATION_EXT_FUNC_CODE && block && block[0] == 11 &&
            (memcmp(block + 1, "NETSCAPE2.0", 11) == 0 || memcmp(block + 1, "ANIMEXTS1.0", 11) == 0)) netscape = 1;
        while (block) {
            if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) return gif_failure(decoder, gif->Error);
            if (netscape && block && block[0] >= 3 && block[1] == 1) decoder->loop_count = block[2] | (block[3] << 8);
        }
    }
    if (DGifGetImageDesc(gif) == GIF_ERROR) return gif_failure(decoder, gif->Error);
    if (gif->Image.Width <= 0 || gif->Image.Height <= 0) return fail(decoder, TC_CORRUPT, "GIF frame is empty");
    decoder->have_image = 1;
    decoder->data_pending = 1;
    decoder->block = NULL;
    *found = 1;
    return TC_OK;
}

static void describe_frame(const tc_gif_decoder *decoder, tc_gif_frame *frame) {
    const GifImageDesc *image = &decoder->gif->Image;
    frame->x = image->Left;
    frame->y = image->Top;
    frame->width = image->Width;
    frame->height = image->Height;
    frame->interlaced = image->Interlace != 0;
    frame->transparent_index = decoder->transparent_index;
    frame->disposal = decoder->disposal;
    frame->delay_cs = decoder->delay_cs;
}

tc_status tc_gif_read_header(tc_gif_decoder *decoder, tc_gif_header *header) {
    memset(header, 0, sizeof *header);
    int error = 0;
    decoder->gif = DGifOpen(decoder, read_memory, &error);
    if (!decoder->gif) {
        if (error == D_GIF_ERR_NOT_GIF_FILE) return fail(decoder, TC_CORRUPT, "not a GIF file");
        return gif_failure(decoder, error);
    }
    GifFileType *gif = decoder->gif;
    int found = 0;
    tc_status status = walk_to_image(decoder, &found);
    if (status != TC_OK) return status;
    if (!found) return fail(decoder, TC_CORRUPT, "GIF file has no image");
    GifImageDesc *image = &gif->Image;
    header->screen_width = gif->SWidth;
    header->screen_height = gif->SHeight;
    header->frame_x = image->Left;
    header->frame_y = image->Top;
    header->frame_width = image->Width;
    header->frame_height = image->Height;
    header->interlaced = image->Interlace != 0;
    header->transparent_index = decoder->transparent_index;
    int covers = image->Left == 0 && image->Top == 0 && image->Width >= gif->SWidth && image->Height >= gif->SHeight;
    header->has_alpha = decoder->transparent_index >= 0 || !covers;
    return TC_OK;
}

tc_status tc_gif_first_frame(const tc_gif_decoder *decoder, tc_gif_frame *frame) {
    memset(frame, 0, sizeof *frame);
    if (!decoder->gif || !decoder->have_image) return TC_CORRUPT;
    describe_frame(decoder, frame);
    return TC_OK;
}

tc_status tc_gif_next_frame(tc_gif_decoder *decoder, tc_gif_frame *frame, int *found) {
    memset(frame, 0, sizeof *frame);
    *found = 0;
    if (!decoder->gif) return fail(decoder, TC_CORRUPT, "header not read");
    GifFileType *gif = decoder->gif;
    if (decoder->data_pending) {
        // The previous frame was not decoded (or its decode stopped at the end code): skip the rest of its data.
        if (decoder->have_image) {
            int min_code_size = 0;
            if (DGifGetCode(gif, &min_code_size, &decoder->block) == GIF_ERROR) return gif_failure(decoder, gif->Error);
            decoder->have_image = 0;
        }
        while (decoder->block) {
            if (DGifGetCodeNext(gif, &decoder->block) == GIF_ERROR) return gif_failure(decoder, gif->Error);
        }
        decoder->data_pending = 0;
    }
    tc_status status = walk_to_image(decoder, found);
    if (status != TC_OK) return status;
    if (*found) describe_frame(decoder, frame);
    return TC_OK;
}

int tc_gif_loop_count(const tc_gif_decoder *decoder) { return decoder->loop_count; }

/// Skips one run of data sub-blocks at `*at`; 0 when the data ends first.
static int skip_sub_blocks(const uint8_t *data, size_t size, size_t *at) {
    while (*at < size) {
        size_t length = data[*at];
        *at += 1 + length;
        if (length == 0) return *at <= size;
    }
    return 0;
}

tc_status tc_gif_count_frames(const uint8_t *data, size_t size, int limit, int *frames, int *complete) {
    *frames = 0;
    *complete = 0;
    if (size < 13) return TC_TRUNCATED;
    size_t at = 13;
    if (data[10] & 0x80) at += 3u * (1u << ((data[10] & 0x07) + 1));
    while (at < size) {
        uint8_t introducer = data[at++];
        if (introducer == 0x3B) {
            *complete = 1;
            return TC_OK;
        }
        if (introducer == 0x21) {
            if (at >= size) return TC_OK;
            at++;  // the label
            if (!skip_sub_blocks(data, size, &at)) return TC_OK;
        } else if (introducer == 0x2C) {
            if (at + 9 > size) return TC_OK;
            uint8_t flags = data[at + 8];
            at += 9;
            if (flags & 0x80) at += 3u * (1u << ((flags & 0x07) + 1));
            at++;  // the LZW minimum code size
            if (at > size || !skip_sub_blocks(data, size, &at)) return TC_OK;
            if (++*frames > limit) return TC_OK;
        } else {
            return TC_CORRUPT;
        }
    }
    return TC_OK;
}

void tc_gif_palette(const tc_gif_decoder *decoder, uint8_t palette[768]) {
    memset(palette, 0, 768);
    const ColorMapObject *map = NULL;
    if (decoder->gif) {
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
            block = NULL;
            break;
        }
    }
    free(table);
    decoder->have_image = 0;
    decoder->block = block;
    decoder->data_pending = block != NULL;
    if (status != TC_OK) return status;
    if (written < total) {
        return decoder->ran_out || !block ? fail(decoder, TC_TRUNCATED, "GIF image data ends before the frame is complete")
                                          : fail(decoder, TC_CORRUPT, "GIF image data ends before the frame is complete");
    }
    return TC_OK;
}

tc_status tc_gif_composite(tc_gif_decoder *decoder, const tc_gif_frame *frame, uint8_t *canvas, uint8_t *indices,
                           uint8_t *covered) {
    GifFileType *gif = decoder->gif;
    const int screen_width = gif->SWidth, screen_height = gif->SHeight;
    // Only the part of the frame on the screen is drawn (tc_gif_decode clips the rest).
    int left = frame->x < screen_width ? frame->x : screen_width, top = frame->y < screen_height ? frame->y : screen_height;
    int right = frame->x + frame->width < screen_width ? frame->x + frame->width : screen_width;
    int bottom = frame->y + frame->height < screen_height ? frame->y + frame->height : screen_height;
    for (int y = top; y < bottom; y++) memset(covered + (size_t)y * screen_width + left, 0, (size_t)(right - left));
    tc_status status = tc_gif_decode(decoder, indices, covered);
    if (status != TC_OK) return status;
    uint8_t palette[768];
    tc_gif_palette(decoder, palette);
    for (int y = top; y < bottom; y++) {
        for (int x = left; x < right; x++) {
            size_t at = (size_t)y * screen_width + x;
            if (!covered[at] || indices[at] == frame->transparent_index) continue;
            uint8_t *pixel = canvas + at * 4;
            const uint8_t *color = palette + indices[at] * 3;
            pixel[0] = color[0], pixel[1] = color[1], pixel[2] = color[2], pixel[3] = 255;
        }
    }
    return TC_OK;
}

void tc_gif_dispose(const tc_gif_decoder *decoder, const tc_gif_frame *frame, uint8_t *canvas, const uint8_t *saved) {
    const int screen_width = decoder->gif->SWidth, screen_height = decoder->gif->SHeight;
    if (frame->disposal == 3 && saved) {
        memcpy(canvas, saved, (size_t)screen_width * screen_height * 4);
        return;
    }
    if (frame->disposal != 2) return;
    // Restore to background: transparent, as browsers do (the background colour index is ignored).
    int left = frame->x < screen_width ? frame->x : screen_width, top = frame->y < screen_height ? frame->y : screen_height;
    int right = frame->x + frame->width < screen_width ? frame->x + frame->width : screen_width;
    int bottom = frame->y + frame->height < screen_height ? frame->y + frame->height : screen_height;
    for (int y = top; y < bottom; y++) memset(canvas + ((size_t)y * screen_width + left) * 4, 0, (size_t)(right - left) * 4);
}
