#include "CHeifJxlGlue.h"
#include "heif_library.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The libheif-written file, gathered by its writer callback (libheif 1.15 hands over the whole file in one call,
/// but nothing here relies on that).
typedef struct {
    uint8_t *data;
    size_t size, capacity;
} heif_output;

static struct heif_error append_output(struct heif_context *context, const void *data, size_t size, void *userdata) {
    (void)context;
    heif_output *output = userdata;
    struct heif_error ok = {heif_error_Ok, heif_suberror_Unspecified, "ok"};
    struct heif_error no_memory = {heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory"};
    if (size > SIZE_MAX - output->size) return no_memory;
    if (output->size + size > output->capacity) {
        size_t capacity = output->capacity ? output->capacity : 4096;
        while (capacity < output->size + size) capacity = capacity > SIZE_MAX / 2 ? output->size + size : capacity * 2;
        uint8_t *grown = realloc(output->data, capacity);
        if (!grown) return no_memory;
        output->data = grown;
        output->capacity = capacity;
    }
    memcpy(output->data + output->size, data, size);
    output->size += size;
    return ok;
}

/// libheif's error as the caller's message and status (a newline at the end of libheif's message dropped).
static tc_status encode_failure(tc_encoded *out, const char *what, struct heif_error error) {
    snprintf(out->message, sizeof out->message, "%s: %s", what, error.message ? error.message : "libheif error");
    size_t length = strlen(out->message);
    while (length > 0 && (out->message[length - 1] == '\n' || out->message[length - 1] == ' ')) out->message[--length] = 0;
    if (error.code == heif_error_Memory_allocation_error) return TC_NO_MEMORY;
    if (error.code == heif_error_Unsupported_feature || error.code == heif_error_Unsupported_filetype
        || error.code == heif_error_Encoder_plugin_error)
        return TC_UNSUPPORTED;
    return TC_CORRUPT;
}

int tc_heif_can_encode(void) {
    return !tc_heif_library_error() && tc_heif.heif_have_encoder_for_format(heif_compression_HEVC);
}

tc_status tc_heif_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels, int quality,
                         const tc_metadata *metadata, tc_encoded *out) {
    memset(out, 0, sizeof *out);
    const char *unloaded = tc_heif_library_error();
    if (unloaded) {
        snprintf(out->message, sizeof out->message, "%s", unloaded);
        return TC_UNSUPPORTED;
    }
    if (!pixels || width <= 0 || height <= 0 || (channels != 3 && channels != 4)
        || stride < (size_t)width * (size_t)channels) {
        snprintf(out->message, sizeof out->message, "HEIC is written from 8-bit RGB or RGBA rows only");
        return TC_UNSUPPORTED;
    }
    if (width > TC_HEIF_MAX_SIDE || height > TC_HEIF_MAX_SIDE) {
        snprintf(out->message, sizeof out->message, "HEIC output is limited to %d px a side (%dx%d asked)",
                 TC_HEIF_MAX_SIDE, width, height);
        return TC_UNSUPPORTED;
    }
    if (metadata && (metadata->exif_size > INT_MAX || metadata->xmp_size > INT_MAX)) {
        snprintf(out->message, sizeof out->message, "metadata over 2 GB");
        return TC_UNSUPPORTED;
    }
    if (!tc_heif.heif_have_encoder_for_format(heif_compression_HEVC)) {
        snprintf(out->message, sizeof out->message, "this libheif has no HEVC encoder (x265)");
        return TC_UNSUPPORTED;
    }
    if (quality < 1) quality = 1;
    if (quality > 100) quality = 100;

    tc_status status = TC_OK;
    struct heif_context *context = tc_heif.heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    struct heif_image_handle *handle = NULL;
    struct heif_encoding_options *options = NULL;
    heif_output output = {0};
    struct heif_error error;
    if (!context) {
        snprintf(out->message, sizeof out->message, "out of memory creating the HEIC encoder");
        return TC_NO_MEMORY;
    }
    error = tc_heif.heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder);
    if (error.code != heif_error_Ok) {
        status = encode_failure(out, "no HEVC encoder", error);
        goto done;
    }
    tc_heif.heif_encoder_set_logging_level(encoder, 0);
    // libheif's mapping, as libvips' heifsave (imgproxy's saver) uses it: x265 constant rate factor (100 - q) / 2.
    error = tc_heif.heif_encoder_set_lossy_quality(encoder, quality);
    if (error.code == heif_error_Ok) error = tc_heif.heif_encoder_set_lossless(encoder, 0);
    // libvips' "auto" subsampling: 4:2:0 below Q 90, 4:4:4 from it.
    if (error.code == heif_error_Ok) error = tc_heif.heif_encoder_set_parameter_string(encoder, "chroma", quality >= 90 ? "444" : "420");
    // One encoding thread: without these x265 starts a pool of one worker per core (and a frame thread) for every
    // encode, while the service already runs one render per core. No pool also turns off wavefront parallelism,
    // which x265 only does on a pool. libheif passes "x265:" parameters through unchecked, so only these two.
    if (error.code == heif_error_Ok) error = tc_heif.heif_encoder_set_parameter_string(encoder, "x265:pools", "none");
    if (error.code == heif_error_Ok) error = tc_heif.heif_encoder_set_parameter_string(encoder, "x265:frame-threads", "1");
    if (error.code != heif_error_Ok) {
        status = encode_failure(out, "HEVC encoder settings", error);
        goto done;
    }

    error = tc_heif.heif_image_create(width, height, heif_colorspace_RGB,
                              channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, &image);
    if (error.code == heif_error_Ok) error = tc_heif.heif_image_add_plane(image, heif_channel_interleaved, width, height, 8);
    if (error.code != heif_error_Ok) {
        status = encode_failure(out, "HEIC image", error);
        goto done;
    }
    int plane_stride = 0;
    uint8_t *plane = tc_heif.heif_image_get_plane(image, heif_channel_interleaved, &plane_stride);
    if (!plane || plane_stride < width * channels) {
        snprintf(out->message, sizeof out->message, "libheif gave no interleaved plane");
        status = TC_NO_MEMORY;
        goto done;
    }
    for (int y = 0; y < height; y++)
        memcpy(plane + (size_t)y * (size_t)plane_stride, pixels + (size_t)y * stride, (size_t)width * (size_t)channels);
    if (metadata && metadata->icc_size) {
        error = tc_heif.heif_image_set_raw_color_profile(image, "prof", metadata->icc, metadata->icc_size);
        if (error.code != heif_error_Ok) {
            status = encode_failure(out, "ICC profile", error);
            goto done;
        }
    }

    options = tc_heif.heif_encoding_options_alloc();
    if (!options) {
        snprintf(out->message, sizeof out->message, "out of memory");
        status = TC_NO_MEMORY;
        goto done;
    }
    options->save_alpha_channel = channels == 4;
    error = tc_heif.heif_context_encode_image(context, image, encoder, options, &handle);
    if (error.code != heif_error_Ok) {
        status = encode_failure(out, "HEVC encoding", error);
        goto done;
    }
    if (metadata && metadata->exif_size) {
        // libheif finds the TIFF header itself and writes the 4-byte offset before it (ISO/IEC 23008-12 A.2.1).
        error = tc_heif.heif_context_add_exif_metadata(context, handle, metadata->exif, (int)metadata->exif_size);
        if (error.code != heif_error_Ok) {
            status = encode_failure(out, "Exif", error);
            goto done;
        }
    }
    if (metadata && metadata->xmp_size) {
        error = tc_heif.heif_context_add_XMP_metadata(context, handle, metadata->xmp, (int)metadata->xmp_size);
        if (error.code != heif_error_Ok) {
            status = encode_failure(out, "XMP", error);
            goto done;
        }
    }
    struct heif_writer writer = {.writer_api_version = 1, .write = append_output};
    error = tc_heif.heif_context_write(context, &writer, &output);
    if (error.code != heif_error_Ok) {
        status = encode_failure(out, "writing HEIC", error);
        goto done;
    }
    out->data = output.data;
    out->size = output.size;
    output.data = NULL;
done:
    free(output.data);
    if (options) tc_heif.heif_encoding_options_free(options);
    if (handle) tc_heif.heif_image_handle_release(handle);
    if (image) tc_heif.heif_image_release(image);
    if (encoder) tc_heif.heif_encoder_release(encoder);
    tc_heif.heif_context_free(context);
    return status;
}
