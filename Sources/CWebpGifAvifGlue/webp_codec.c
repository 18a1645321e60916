#include "CWebpGifAvifGlue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

struct tc_webp_decoder {
    const uint8_t *data;
    size_t size;
    WebPDemuxer *demux;
    WebPIterator frame;      // the first frame, valid once the header is read
    int have_frame;
    WebPChunkIterator exif, icc, xmp;
    int have_exif, have_icc, have_xmp;
    int canvas_width, canvas_height;
    char message[TC_MESSAGE_CAPACITY];
};

static tc_status fail(tc_webp_decoder *decoder, tc_status status, const char *text) {
    snprintf(decoder->message, sizeof decoder->message, "%s", text);
    return status;
}

tc_webp_decoder *tc_webp_decoder_create(const uint8_t *data, size_t size) {
    tc_webp_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    decoder->data = data;
    decoder->size = size;
    return decoder;
}

void tc_webp_decoder_destroy(tc_webp_decoder *decoder) {
    if (!decoder) return;
    if (decoder->have_frame) WebPDemuxReleaseIterator(&decoder->frame);
    if (decoder->have_exif) WebPDemuxReleaseChunkIterator(&decoder->exif);
    if (decoder->have_icc) WebPDemuxReleaseChunkIterator(&decoder->icc);
    if (decoder->have_xmp) WebPDemuxReleaseChunkIterator(&decoder->xmp);
    WebPDemuxDelete(decoder->demux);
    free(decoder);
}

const char *tc_webp_message(const tc_webp_decoder *decoder) { return decoder->message; }

static const char *status_text(VP8StatusCode code) {
    switch (code) {
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "invalid WebP bitstream";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported WebP feature";
    case VP8_STATUS_SUSPENDED: return "decoding suspended";
    case VP8_STATUS_USER_ABORT: return "decoding aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "file ends before the image data is complete";
    default: return "WebP decoder error";
    }
}

static tc_status map_status(tc_webp_decoder *decoder, VP8StatusCode code) {
    tc_status status = code == VP8_STATUS_NOT_ENOUGH_DATA ? TC_TRUNCATED
        : code == VP8_STATUS_OUT_OF_MEMORY ? TC_NO_MEMORY
        : code == VP8_STATUS_UNSUPPORTED_FEATURE ? TC_UNSUPPORTED : TC_CORRUPT;
    return fail(decoder, status, status_text(code));
}

tc_status tc_webp_read_header(tc_webp_decoder *decoder, tc_webp_header *header) {
    memset(header, 0, sizeof *header);
    WebPData input = {decoder->data, decoder->size};
    WebPDemuxState state = WEBP_DEMUX_PARSE_ERROR;
    // Partial mode tells a cut file (state short of DONE) from a malformed one (PARSE_ERROR).
    decoder->demux = WebPDemuxPartial(&input, &state);
    if (!decoder->demux || state == WEBP_DEMUX_PARSE_ERROR) {
        return fail(decoder, TC_CORRUPT, "invalid WebP container (RIFF chunks do not parse)");
    }
    if (state != WEBP_DEMUX_DONE) return fail(decoder, TC_TRUNCATED, "file ends before the last RIFF chunk");
    decoder->canvas_width = (int)WebPDemuxGetI(decoder->demux, WEBP_FF_CANVAS_WIDTH);
    decoder->canvas_height = (int)WebPDemuxGetI(decoder->demux, WEBP_FF_CANVAS_HEIGHT);
    uint32_t flags = WebPDemuxGetI(decoder->demux, WEBP_FF_FORMAT_FLAGS);
    if (!WebPDemuxGetFrame(decoder->demux, 1, &decoder->frame)) {
        return fail(decoder, TC_CORRUPT, "WebP file has no image frame");
    }
    decoder->have_frame = 1;
    WebPBitstreamFeatures features;
    VP8StatusCode code = WebPGetFeatures(decoder->frame.fragment.bytes, decoder->frame.fragment.size, &features);
    if (code != VP8_STATUS_OK) return map_status(decoder, code);
    // The frame's bitstream must agree with the frame rectangle the container declares.
    if (features.width != decoder->frame.width || features.height != decoder->frame.height) {
        return fail(decoder, TC_CORRUPT, "WebP frame size differs from its bitstream size");
    }
    if (flags & EXIF_FLAG) decoder->have_exif = WebPDemuxGetChunk(decoder->demux, "EXIF", 1, &decoder->exif);
    if (flags & ICCP_FLAG) decoder->have_icc = WebPDemuxGetChunk(decoder->demux, "ICCP", 1, &decoder->icc);
    if (flags & XMP_FLAG) decoder->have_xmp = WebPDemuxGetChunk(decoder->demux, "XMP ", 1, &decoder->xmp);
    header->canvas_width = decoder->canvas_width;
    header->canvas_height = decoder->canvas_height;
    header->frame_count = (int)WebPDemuxGetI(decoder->demux, WEBP_FF_FRAME_COUNT);
    header->frame_x = decoder->frame.x_offset;
    header->frame_y = decoder->frame.y_offset;
    header->frame_width = decoder->frame.width;
    header->frame_height = decoder->frame.height;
    header->lossless = features.format == 2;
    int covers = header->frame_x == 0 && header->frame_y == 0 && header->frame_width == header->canvas_width
        && header->frame_height == header->canvas_height;
    header->has_alpha = features.has_alpha || !covers;
    return TC_OK;
}

const uint8_t *tc_webp_exif(const tc_webp_decoder *decoder, size_t *length) {
    *length = decoder->have_exif ? decoder->exif.chunk.size : 0;
    return decoder->have_exif ? decoder->exif.chunk.bytes : NULL;
}

const uint8_t *tc_webp_icc(const tc_webp_decoder *decoder, size_t *length) {
    *length = decoder->have_icc ? decoder->icc.chunk.size : 0;
    return decoder->have_icc ? decoder->icc.chunk.bytes : NULL;
}

const uint8_t *tc_webp_xmp(const tc_webp_decoder *decoder, size_t *length) {
    *length = decoder->have_xmp ? decoder->xmp.chunk.size : 0;
    return decoder->have_xmp ? decoder->xmp.chunk.bytes : NULL;
}

tc_status tc_webp_decode(tc_webp_decoder *decoder, int width, int height, int channels,
                         uint8_t *out, size_t stride) {
    if (!decoder->have_frame) return fail(decoder, TC_CORRUPT, "header not read");
    const WebPIterator *frame = &decoder->frame;
    int covers = frame->x_offset == 0 && frame->y_offset == 0 && frame->width == decoder->canvas_width
        && frame->height == decoder->canvas_height;
    int scaled = width != decoder->canvas_width || height != decoder->canvas_height;
    if (scaled && !covers) return fail(decoder, TC_UNSUPPORTED, "scaled decode of a partial frame");
    if (!covers && channels != 4) return fail(decoder, TC_UNSUPPORTED, "a partial frame needs an alpha channel");

    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return fail(decoder, TC_UNSUPPORTED, "libwebp version mismatch");
    config.output.colorspace = channels == 4 ? MODE_RGBA : MODE_RGB;
    config.output.is_external_memory = 1;
    // libwebp filters in a second thread while it parses: about a fifth off a large lossy decode's wall
    // time (libvips does the same), at no extra memory.
    config.options.use_threads = 1;
    uint8_t *target = out;
    size_t target_stride = stride;
    if (covers) {
        if (scaled) {
            // libwebp's rescaler averages in YUV while decoding: the shrink-on-load step.
            config.options.use_scaling = 1;
            config.options.scaled_width = width;
            config.options.scaled_height = height;
        }
    } else {
        // The first frame drawn on a transparent canvas (what WebPAnimDecoder does for a key frame).
        for (int y = 0; y < height; y++) memset(out + (size_t)y * stride, 0, (size_t)width * 4);
        target = out + (size_t)frame->y_offset * stride + (size_t)frame->x_offset * 4;
    }
    int frame_width = scaled ? width : frame->width, frame_height = scaled ? height : frame->height;
    config.output.u.RGBA.rgba = target;
    config.output.u.RGBA.stride = (int)target_stride;
    config.output.u.RGBA.size = target_stride * (size_t)(frame_height - 1) + (size_t)frame_width * channels;
    VP8StatusCode code = WebPDecode(frame->fragment.bytes, frame->fragment.size, &config);
    WebPFreeDecBuffer(&config.output);
    if (code != VP8_STATUS_OK) return map_status(decoder, code);
    return TC_OK;
}

static int write_to_memory(const uint8_t *data, size_t size, const WebPPicture *picture) {
    return WebPMemoryWrite(data, size, picture);
}

/// Wraps the simple-format `image` (malloc'd by libwebp) with metadata chunks into `out`; frees `image`.
static tc_status webp_add_metadata(uint8_t *image, size_t size, const tc_metadata *metadata, tc_encoded *out) {
    WebPMux *mux = WebPMuxNew();
    WebPData bitstream = {image, size}, assembled = {NULL, 0};
    WebPMuxError error = mux ? WebPMuxSetImage(mux, &bitstream, 1) : WEBP_MUX_MEMORY_ERROR;
    WebPData exif = {metadata->exif, metadata->exif_size}, xmp = {metadata->xmp, metadata->xmp_size},
             icc = {metadata->icc, metadata->icc_size};
    if (error == WEBP_MUX_OK && exif.size) error = WebPMuxSetChunk(mux, "EXIF", &exif, 1);
    if (error == WEBP_MUX_OK && xmp.size) error = WebPMuxSetChunk(mux, "XMP ", &xmp, 1);
    if (error == WEBP_MUX_OK && icc.size) error = WebPMuxSetChunk(mux, "ICCP", &icc, 1);
    if (error == WEBP_MUX_OK) error = WebPMuxAssemble(mux, &assembled);
    WebPMuxDelete(mux);
    WebPFree(image);
    if (error != WEBP_MUX_OK) {
        WebPDataClear(&assembled);
        snprintf(out->message, sizeof out->message, "libwebpmux error %d writing metadata", (int)error);
        return error == WEBP_MUX_MEMORY_ERROR ? TC_NO_MEMORY : TC_CORRUPT;
    }
    // WebPDataClear frees with WebPFree, which is free() in libwebp's default build (tc_free frees it).
    out->data = (uint8_t *)assembled.bytes;
    out->size = assembled.size;
    return TC_OK;
}

tc_status tc_webp_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels,
                         int quality, const tc_metadata *metadata, tc_encoded *out) {
    memset(out, 0, sizeof *out);
    WebPConfig config;
    WebPPicture picture;
    if (!WebPConfigPreset(&config, WEBP_PRESET_DEFAULT, (float)quality) || !WebPPictureInit(&picture)) {
        snprintf(out->message, sizeof out->message, "libwebp version mismatch");
        return TC_UNSUPPORTED;
    }
    config.method = 4;
    config.alpha_quality = 100;
    picture.use_argb = 0;
    picture.width = width;
    picture.height = height;
    int imported = channels == 4 ? WebPPictureImportRGBA(&picture, pixels, (int)stride)
                                 : WebPPictureImportRGB(&picture, pixels, (int)stride);
    if (!imported) {
        WebPPictureFree(&picture);
        snprintf(out->message, sizeof out->message, "out of memory importing pixels into libwebp");
        return TC_NO_MEMORY;
    }
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = write_to_memory;
    picture.custom_ptr = &writer;
    int ok = WebPEncode(&config, &picture);
    int error = picture.error_code;
    WebPPictureFree(&picture);
    if (!ok) {
        WebPMemoryWriterClear(&writer);
        snprintf(out->message, sizeof out->message, "libwebp encoder error %d", error);
        return error == VP8_ENC_ERROR_OUT_OF_MEMORY ? TC_NO_MEMORY : TC_CORRUPT;
    }
    if (metadata && (metadata->exif_size || metadata->xmp_size || metadata->icc_size))
        return webp_add_metadata(writer.mem, writer.size, metadata, out);
    out->data = writer.mem;  // malloc'd by libwebp: released with tc_free (free)
    out->size = writer.size;
    return TC_OK;
}
