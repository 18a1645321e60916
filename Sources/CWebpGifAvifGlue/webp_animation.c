// Animated WebP: WebPAnimDecoder composites the frames (alpha blending, disposal) onto its canvas, and
// WebPAnimEncoder writes them back, choosing sub-rectangles and blending itself.
#include "CWebpGifAvifGlue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

struct tc_webp_animation {
    WebPAnimDecoder *decoder;
    WebPAnimInfo info;
};

tc_webp_animation *tc_webp_animation_create(const uint8_t *data, size_t size, char message[TC_MESSAGE_CAPACITY]) {
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) {
        snprintf(message, TC_MESSAGE_CAPACITY, "libwebpdemux version mismatch");
        return NULL;
    }
    options.color_mode = MODE_RGBA;  // not premultiplied: what the renderer's rows are
    options.use_threads = 0;
    tc_webp_animation *animation = calloc(1, sizeof *animation);
    if (!animation) {
        snprintf(message, TC_MESSAGE_CAPACITY, "out of memory");
        return NULL;
    }
    WebPData input = {data, size};
    animation->decoder = WebPAnimDecoderNew(&input, &options);
    if (!animation->decoder || !WebPAnimDecoderGetInfo(animation->decoder, &animation->info)) {
        snprintf(message, TC_MESSAGE_CAPACITY, "invalid animated WebP (its frames do not parse)");
        tc_webp_animation_destroy(animation);
        return NULL;
    }
    return animation;
}

void tc_webp_animation_destroy(tc_webp_animation *animation) {
    if (!animation) return;
    WebPAnimDecoderDelete(animation->decoder);
    free(animation);
}

void tc_webp_animation_info(const tc_webp_animation *animation, int *width, int *height, int *frames, int *loop_count) {
    *width = (int)animation->info.canvas_width;
    *height = (int)animation->info.canvas_height;
    *frames = (int)animation->info.frame_count;
    *loop_count = (int)animation->info.loop_count;
}

tc_status tc_webp_animation_next(tc_webp_animation *animation, const uint8_t **canvas, int *timestamp_ms, int *found,
                                 char message[TC_MESSAGE_CAPACITY]) {
    *found = 0;
    *canvas = NULL;
    if (!WebPAnimDecoderHasMoreFrames(animation->decoder)) return TC_OK;
    uint8_t *buffer = NULL;
    int timestamp = 0;
    if (!WebPAnimDecoderGetNext(animation->decoder, &buffer, &timestamp)) {
        snprintf(message, TC_MESSAGE_CAPACITY, "invalid WebP animation frame");
        return TC_CORRUPT;
    }
    *canvas = buffer;
    *timestamp_ms = timestamp;
    *found = 1;
    return TC_OK;
}

struct tc_webp_animation_encoder {
    WebPAnimEncoder *encoder;
    WebPConfig config;
    int width, height;
};

tc_webp_animation_encoder *tc_webp_animation_encoder_create(int width, int height, int quality) {
    tc_webp_animation_encoder *encoder = calloc(1, sizeof *encoder);
    if (!encoder) return NULL;
    WebPAnimEncoderOptions options;
    if (!WebPAnimEncoderOptionsInit(&options) || !WebPConfigPreset(&encoder->config, WEBP_PRESET_DEFAULT, (float)quality)) {
        free(encoder);
        return NULL;
    }
    encoder->config.method = 4;
    encoder->config.alpha_quality = 100;
    // The loop count is set in the file at finish (set_loop_count): it is known once every frame was read.
    options.allow_mixed = 0;
    encoder->width = width;
    encoder->height = height;
    encoder->encoder = WebPAnimEncoderNew(width, height, &options);
    if (!encoder->encoder) {
        free(encoder);
        return NULL;
    }
    return encoder;
}

void tc_webp_animation_encoder_destroy(tc_webp_animation_encoder *encoder) {
    if (!encoder) return;
    WebPAnimEncoderDelete(encoder->encoder);
    free(encoder);
}

tc_status tc_webp_animation_encoder_add(tc_webp_animation_encoder *encoder, const uint8_t *pixels, size_t stride,
                                        int channels, int timestamp_ms, tc_encoded *error) {
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) return TC_UNSUPPORTED;
    picture.use_argb = 1;  // WebPAnimEncoder works on ARGB
    picture.width = encoder->width;
    picture.height = encoder->height;
    int imported = channels == 4 ? WebPPictureImportRGBA(&picture, pixels, (int)stride)
                                 : WebPPictureImportRGB(&picture, pixels, (int)stride);
    if (!imported) {
        WebPPictureFree(&picture);
        snprintf(error->message, sizeof error->message, "out of memory importing a frame into libwebp");
        return TC_NO_MEMORY;
    }
    int ok = WebPAnimEncoderAdd(encoder->encoder, &picture, timestamp_ms, &encoder->config);
    WebPPictureFree(&picture);
    if (!ok) {
        snprintf(error->message, sizeof error->message, "libwebp animation encoder: %s",
                 WebPAnimEncoderGetError(encoder->encoder));
        return TC_CORRUPT;
    }
    return TC_OK;
}

/// Sets the loop count in the ANIM chunk of an assembled animation (libwebp writes the count given when the encoder
/// was made, before any frame was read); a file libwebp turned into a still has no ANIM chunk and is left as it is.
static void set_loop_count(uint8_t *data, size_t size, int loop_count) {
    size_t at = 12;  // "RIFF", size, "WEBP"
    while (at + 8 <= size) {
        uint32_t length = (uint32_t)data[at + 4] | (uint32_t)data[at + 5] << 8 | (uint32_t)data[at + 6] << 16 |
                          (uint32_t)data[at + 7] << 24;
        if (memcmp(data + at, "ANIM", 4) == 0) {
            // Background colour (4 bytes), then the loop count (16 bits, little-endian).
            if (length >= 6 && at + 8 + 6 <= size) {
                data[at + 12] = (uint8_t)(loop_count & 0xFF);
                data[at + 13] = (uint8_t)((loop_count >> 8) & 0xFF);
            }
            return;
        }
        if (length > size - at - 8) return;
        at += 8 + (size_t)length + (length & 1);
    }
}

tc_status tc_webp_animation_encoder_finish(tc_webp_animation_encoder *encoder, int end_ms, int loop_count,
                                           tc_encoded *out) {
    memset(out, 0, sizeof *out);
    if (loop_count > 65535) {
        snprintf(out->message, sizeof out->message, "a WebP loop count is at most 65535, not %d", loop_count);
        return TC_UNSUPPORTED;
    }
    WebPData assembled = {NULL, 0};
    if (!WebPAnimEncoderAdd(encoder->encoder, NULL, end_ms, NULL) ||
        !WebPAnimEncoderAssemble(encoder->encoder, &assembled)) {
        snprintf(out->message, sizeof out->message, "libwebp animation encoder: %s",
                 WebPAnimEncoderGetError(encoder->encoder));
        WebPDataClear(&assembled);
        return TC_CORRUPT;
    }
    // Not given (the source said nothing): played once.
    set_loop_count((uint8_t *)assembled.bytes, assembled.size, loop_count < 0 ? 1 : loop_count);
    out->data = (uint8_t *)assembled.bytes;  // malloc'd by libwebp: released with tc_free
    out->size = assembled.size;
    return TC_OK;
}
