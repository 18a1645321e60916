// GIF out: our own quantiser (median cut on a 5-bit-per-channel histogram refined by two k-means passes,
// Floyd-Steinberg error diffusion; an
// image of 256 colours or fewer keeps them exactly) and giflib's EGif API for the LZW and the records.
#include "CWebpGifAvifGlue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gif_lib.h>

// MARK: Quantiser

enum { BINS = 1 << 15 };

static inline int bin_of(int r, int g, int b) { return ((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3); }

typedef struct {
    int lo[3], hi[3];       // inclusive bin coordinates, 0-31
    uint64_t count;
} box;

typedef struct {
    uint32_t *count;
    uint64_t *sum;          // 3 per bin
} histogram;

/// Shrinks `b` to the bins that hold pixels and counts them.
static void fit_box(const histogram *h, box *b) {
    int lo[3] = {31, 31, 31}, hi[3] = {0, 0, 0};
    uint64_t count = 0;
    for (int r = b->lo[0]; r <= b->hi[0]; r++)
        for (int g = b->lo[1]; g <= b->hi[1]; g++)
            for (int bl = b->lo[2]; bl <= b->hi[2]; bl++) {
                uint32_t c = h->count[(r << 10) | (g << 5) | bl];
                if (!c) continue;
                count += c;
                if (r < lo[0]) lo[0] = r;
                if (r > hi[0]) hi[0] = r;
                if (g < lo[1]) lo[1] = g;
                if (g > hi[1]) hi[1] = g;
                if (bl < lo[2]) lo[2] = bl;
                if (bl > hi[2]) hi[2] = bl;
            }
    b->count = count;
    if (count) memcpy(b->lo, lo, sizeof lo), memcpy(b->hi, hi, sizeof hi);
}

/// Splits `b` at the pixel median of its longest side (green weighted, as the eye is most sensitive to it).
static int split_box(const histogram *h, box *b, box *out) {
    int lengths[3] = {(b->hi[0] - b->lo[0]) * 2, (b->hi[1] - b->lo[1]) * 3, b->hi[2] - b->lo[2]};
    int axis = lengths[0] >= lengths[1] && lengths[0] >= lengths[2] ? 0 : lengths[1] >= lengths[2] ? 1 : 2;
    if (b->hi[axis] == b->lo[axis]) return 0;
    uint64_t half = b->count / 2, running = 0;
    int cut = b->lo[axis];
    for (int v = b->lo[axis]; v < b->hi[axis]; v++) {
        box slice = *b;
        slice.lo[axis] = slice.hi[axis] = v;
        uint64_t c = 0;
        for (int r = slice.lo[0]; r <= slice.hi[0]; r++)
            for (int g = slice.lo[1]; g <= slice.hi[1]; g++)
                for (int bl = slice.lo[2]; bl <= slice.hi[2]; bl++) c += h->count[(r << 10) | (g << 5) | bl];
        running += c;
        cut = v;
        if (running >= half) break;
    }
    *out = *b;
    b->hi[axis] = cut;
    out->lo[axis] = cut + 1;
    fit_box(h, b);
    fit_box(h, out);
    return b->count && out->count;
}

static int nearest(const uint8_t *palette, int colors, int r, int g, int b) {
    int best = 0, best_distance = 1 << 30;
    for (int i = 0; i < colors; i++) {
        int dr = r - palette[i * 3], dg = g - palette[i * 3 + 1], db = b - palette[i * 3 + 2];
        int d = dr * dr * 2 + dg * dg * 3 + db * db;
        if (d < best_distance) best_distance = d, best = i;
    }
    return best;
}

/// Up to `limit` distinct opaque colours, exactly; 0 when there are more.
static int exact_colors(const uint8_t *pixels, int width, int height, size_t stride, int channels, int limit,
                        uint8_t *palette, uint32_t *keys) {
    enum { SLOTS = 1024 };
    for (int i = 0; i < SLOTS; i++) keys[i] = 0xFFFFFFFFu;
    int colors = 0;
    for (int y = 0; y < height; y++) {
        const uint8_t *row = pixels + (size_t)y * stride;
        for (int x = 0; x < width; x++) {
            const uint8_t *p = row + (size_t)x * channels;
            if (channels == 4 && p[3] < 128) continue;
            uint32_t key = ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
            uint32_t slot = (key * 2654435761u) >> 22;
            while (keys[slot] != 0xFFFFFFFFu && keys[slot] != key) slot = (slot + 1) & (SLOTS - 1);
            if (keys[slot] == key) continue;
            if (colors == limit) return 0;
            keys[slot] = key;
            palette[colors * 3] = p[0], palette[colors * 3 + 1] = p[1], palette[colors * 3 + 2] = p[2];
            colors++;
        }
    }
    return colors;
}

int tc_quantize_rgba(const uint8_t *pixels, int width, int height, size_t stride, int channels, int max_colors,
                     int dither, uint8_t *indices, uint8_t *palette, int *transparent_index) {
    memset(palette, 0, 768);
    int has_transparent = 0;
    if (channels == 4) {
        for (int y = 0; y < height && !has_transparent; y++)
            for (int x = 0; x < width; x++)
                if (pixels[(size_t)y * stride + (size_t)x * 4 + 3] < 128) { has_transparent = 1; break; }
    }
    int limit = max_colors - has_transparent;
    if (limit < 1) limit = 1;
    uint32_t keys[1024];
    int colors = exact_colors(pixels, width, height, stride, channels, limit, palette, keys);
    int exact = colors > 0;
    // Nearest entries by 6 bits a channel: the dithered colour is matched to within 2 levels.
    enum { LOOKUP = 1 << 18 };
    int16_t *cache = malloc(sizeof(int16_t) * LOOKUP);
    if (!cache) return 0;
    if (!exact) {
        histogram h = {calloc(BINS, sizeof(uint32_t)), calloc((size_t)BINS * 3, sizeof(uint64_t))};
        box *boxes = malloc(sizeof(box) * 256);
        if (!h.count || !h.sum || !boxes) {
            free(h.count), free(h.sum), free(boxes), free(cache);
            return 0;
        }
        for (int y = 0; y < height; y++) {
            const uint8_t *row = pixels + (size_t)y * stride;
            for (int x = 0; x < width; x++) {
                const uint8_t *p = row + (size_t)x * channels;
                if (channels == 4 && p[3] < 128) continue;
                int k = bin_of(p[0], p[1], p[2]);
                h.count[k]++;
                h.sum[k * 3] += p[0], h.sum[k * 3 + 1] += p[1], h.sum[k * 3 + 2] += p[2];
            }
        }
        int count = 1;
        boxes[0] = (box){{0, 0, 0}, {31, 31, 31}, 0};
        fit_box(&h, &boxes[0]);
        while (count < limit) {
            // The box with the most pixels times its volume goes next: large flat areas get few entries.
            int pick = -1;
            double best = 0;
            for (int i = 0; i < count; i++) {
                double volume = (double)(boxes[i].hi[0] - boxes[i].lo[0] + 1) * (boxes[i].hi[1] - boxes[i].lo[1] + 1) *
                                (boxes[i].hi[2] - boxes[i].lo[2] + 1);
                double score = volume > 1 ? (double)boxes[i].count * volume : 0;
                if (score > best) best = score, pick = i;
            }
            if (pick < 0 || !split_box(&h, &boxes[pick], &boxes[count])) break;
            count++;
        }
        colors = 0;
        for (int i = 0; i < count; i++) {
            uint64_t sum[3] = {0, 0, 0}, n = 0;
            for (int r = boxes[i].lo[0]; r <= boxes[i].hi[0]; r++)
                for (int g = boxes[i].lo[1]; g <= boxes[i].hi[1]; g++)
                    for (int b = boxes[i].lo[2]; b <= boxes[i].hi[2]; b++) {
                        int k = (r << 10) | (g << 5) | b;
                        n += h.count[k];
                        sum[0] += h.sum[k * 3], sum[1] += h.sum[k * 3 + 1], sum[2] += h.sum[k * 3 + 2];
                    }
            if (!n) continue;
            for (int c = 0; c < 3; c++) palette[colors * 3 + c] = (uint8_t)((sum[c] + n / 2) / n);
            colors++;
        }
        if (colors == 0) colors = 1;
        // Two Lloyd (k-means) passes over the histogram's bins, each bin at its pixels' mean: median cut's boxes
        // place entries by count, these move each entry to the centre of the colours nearest it.
        for (int pass = 0; pass < 2; pass++) {
            uint64_t (*acc)[4] = calloc((size_t)colors, sizeof *acc);
            if (!acc) break;
            for (int k = 0; k < BINS; k++) {
                uint32_t n = h.count[k];
                if (!n) continue;
                int r = (int)(h.sum[k * 3] / n), g = (int)(h.sum[k * 3 + 1] / n), b = (int)(h.sum[k * 3 + 2] / n);
                int i = nearest(palette, colors, r, g, b);
                acc[i][0] += h.sum[k * 3], acc[i][1] += h.sum[k * 3 + 1], acc[i][2] += h.sum[k * 3 + 2], acc[i][3] += n;
            }
            for (int i = 0; i < colors; i++)
                if (acc[i][3])
                    for (int c = 0; c < 3; c++) palette[i * 3 + c] = (uint8_t)((acc[i][c] + acc[i][3] / 2) / acc[i][3]);
            free(acc);
        }
        free(h.count), free(h.sum), free(boxes);
    }
    for (int i = 0; i < LOOKUP; i++) cache[i] = -1;
    // Error rows for Floyd-Steinberg, one pixel of margin each side, in 1/16ths.
    int *errors = dither && !exact ? calloc((size_t)(width + 2) * 6, sizeof(int)) : NULL;
    int transparent = has_transparent ? colors : -1;
    for (int y = 0; y < height; y++) {
        const uint8_t *row = pixels + (size_t)y * stride;
        int *current = errors ? errors + ((y & 1) ? (width + 2) * 3 : 0) : NULL;
        int *next = errors ? errors + ((y & 1) ? 0 : (width + 2) * 3) : NULL;
        if (next) memset(next, 0, sizeof(int) * (size_t)(width + 2) * 3);
        for (int x = 0; x < width; x++) {
            const uint8_t *p = row + (size_t)x * channels;
            uint8_t *out = indices + (size_t)y * width + x;
            if (channels == 4 && p[3] < 128) {
                *out = (uint8_t)transparent;
                continue;
            }
            int r = p[0], g = p[1], b = p[2];
            if (current) {
                int *e = current + (x + 1) * 3;
                // `dither` percent of the diffused error (errors are kept in 1/16ths).
                r += e[0] * dither / 1600, g += e[1] * dither / 1600, b += e[2] * dither / 1600;
                r = r < 0 ? 0 : r > 255 ? 255 : r;
                g = g < 0 ? 0 : g > 255 ? 255 : g;
                b = b < 0 ? 0 : b > 255 ? 255 : b;
            }
            int index;
            if (exact) {
                index = -1;
                for (int i = 0; i < colors; i++)
                    if (palette[i * 3] == r && palette[i * 3 + 1] == g && palette[i * 3 + 2] == b) { index = i; break; }
                if (index < 0) index = nearest(palette, colors, r, g, b);
            } else {
                int k = ((r >> 2) << 12) | ((g >> 2) << 6) | (b >> 2);
                if (cache[k] < 0) cache[k] = (int16_t)nearest(palette, colors, (r & ~3) | 2, (g & ~3) | 2, (b & ~3) | 2);
                index = cache[k];
            }
            *out = (uint8_t)index;
            if (current) {
                int er = r - palette[index * 3], eg = g - palette[index * 3 + 1], eb = b - palette[index * 3 + 2];
                int errs[3] = {er, eg, eb};
                for (int c = 0; c < 3; c++) {
                    current[(x + 2) * 3 + c] += errs[c] * 7;
                    next[x * 3 + c] += errs[c] * 3;
                    next[(x + 1) * 3 + c] += errs[c] * 5;
                    next[(x + 2) * 3 + c] += errs[c];
                }
            }
        }
    }
    free(errors);
    free(cache);
    *transparent_index = transparent;
    return colors + has_transparent;
}

// MARK: Writer

struct tc_gif_encoder {
    GifFileType *gif;
    uint8_t *data;
    size_t size, capacity;
    int failed;              // a write could not grow the buffer
    int width, height;
    int frames;
    size_t loop_at;          // where the NETSCAPE2.0 loop extension goes: right after the screen descriptor
};

static int write_memory(GifFileType *gif, const GifByteType *bytes, int length) {
    tc_gif_encoder *encoder = gif->UserData;
    if (length <= 0) return 0;
    if (encoder->size + (size_t)length > encoder->capacity) {
        // A quarter more than needed: what is held stays within 1.25x the file, as GIFEncoder.workingMemory counts
        // (doubling could hold twice it), and growing stays amortised linear.
        size_t needed = encoder->size + (size_t)length;
        size_t capacity = needed + needed / 4;
        if (capacity < 65536) capacity = 65536;
        uint8_t *grown = realloc(encoder->data, capacity);
        if (!grown) {
            encoder->failed = 1;
            return 0;
        }
        encoder->data = grown;
        encoder->capacity = capacity;
    }
    memcpy(encoder->data + encoder->size, bytes, (size_t)length);
    encoder->size += (size_t)length;
    return length;
}

tc_gif_encoder *tc_gif_encoder_create(int width, int height) {
    tc_gif_encoder *encoder = calloc(1, sizeof *encoder);
    if (!encoder) return NULL;
    int error = 0;
    encoder->gif = EGifOpen(encoder, write_memory, &error);
    encoder->width = width;
    encoder->height = height;
    if (!encoder->gif) {
        free(encoder);
        return NULL;
    }
    EGifSetGifVersion(encoder->gif, true);
    // No global colour table: each frame carries its own.
    if (EGifPutScreenDesc(encoder->gif, width, height, 8, 0, NULL) == GIF_ERROR || encoder->failed) {
        tc_gif_encoder_destroy(encoder);
        return NULL;
    }
    encoder->loop_at = encoder->size;
    return encoder;
}

void tc_gif_encoder_destroy(tc_gif_encoder *encoder) {
    if (!encoder) return;
    if (encoder->gif) {
        int error = 0;
        EGifCloseFile(encoder->gif, &error);
    }
    free(encoder->data);
    free(encoder);
}

tc_status tc_gif_encoder_add(tc_gif_encoder *encoder, int x, int y, int width, int height, const uint8_t *indices,
                             const uint8_t *palette, int colors, int transparent_index, int delay_cs, int disposal,
                             tc_encoded *error) {
    int bits = 1;
    while ((1 << bits) < colors) bits++;
    ColorMapObject *map = GifMakeMapObject(1 << bits, NULL);
    if (!map) {
        snprintf(error->message, sizeof error->message, "out of memory");
        return TC_NO_MEMORY;
    }
    for (int i = 0; i < (1 << bits); i++) {
        int present = i < colors;
        map->Colors[i].Red = present ? palette[i * 3] : 0;
        map->Colors[i].Green = present ? palette[i * 3 + 1] : 0;
        map->Colors[i].Blue = present ? palette[i * 3 + 2] : 0;
    }
    GraphicsControlBlock control = {disposal, false, delay_cs, transparent_index};
    GifByteType extension[4];
    size_t length = EGifGCBToExtension(&control, extension);
    int failed = EGifPutExtension(encoder->gif, GRAPHICS_EXT_FUNC_CODE, (int)length, extension) == GIF_ERROR ||
                 EGifPutImageDesc(encoder->gif, x, y, width, height, false, map) == GIF_ERROR;
    for (int row = 0; row < height && !failed; row++) {
        failed = EGifPutLine(encoder->gif, (GifPixelType *)(indices + (size_t)row * width), width) == GIF_ERROR;
    }
    GifFreeMapObject(map);
    if (failed || encoder->failed) {
        snprintf(error->message, sizeof error->message, "GIF writer error: %s",
                 encoder->failed ? "out of memory" : GifErrorString(encoder->gif->Error));
        return encoder->failed ? TC_NO_MEMORY : TC_CORRUPT;
    }
    encoder->frames++;
    return TC_OK;
}

tc_status tc_gif_encoder_finish(tc_gif_encoder *encoder, int loop_count, tc_encoded *out) {
    memset(out, 0, sizeof *out);
    int error = 0;
    int closed = EGifCloseFile(encoder->gif, &error);
    encoder->gif = NULL;
    if (closed == GIF_ERROR || encoder->failed) {
        snprintf(out->message, sizeof out->message, "GIF writer error: %s",
                 encoder->failed ? "out of memory" : GifErrorString(error));
        return TC_CORRUPT;
    }
    if (loop_count >= 0) {
        // The NETSCAPE2.0 application extension, as EGifPutExtensionLeader/Block/Trailer write it, placed after the
        // screen descriptor where readers expect it: the frames were written as they came, before the count was known.
        uint8_t loop[19] = {0x21, 0xFF, 11, 'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0', 3, 1,
                            (uint8_t)(loop_count & 0xFF), (uint8_t)((loop_count >> 8) & 0xFF), 0};
        if (encoder->size + sizeof loop > encoder->capacity) {
            uint8_t *grown = realloc(encoder->data, encoder->size + sizeof loop);
            if (!grown) {
                snprintf(out->message, sizeof out->message, "GIF writer error: out of memory");
                return TC_NO_MEMORY;
            }
            encoder->data = grown;
            encoder->capacity = encoder->size + sizeof loop;
        }
        memmove(encoder->data + encoder->loop_at + sizeof loop, encoder->data + encoder->loop_at,
                encoder->size - encoder->loop_at);
        memcpy(encoder->data + encoder->loop_at, loop, sizeof loop);
        encoder->size += sizeof loop;
    }
    out->data = encoder->data;  // malloc'd: released with tc_free
    out->size = encoder->size;
    encoder->data = NULL;
    return TC_OK;
}
