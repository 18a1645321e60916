#include "CHeifJxlGlue.h"
#include "jxl_library.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Metadata boxes above this are skipped rather than read (a hostile file cannot make us hold more).
enum { MAX_BOX_BYTES = 16 << 20 };

struct tc_jxl_decoder {
    const uint8_t *data;
    size_t size;
    JxlDecoder *jxl;
    JxlBasicInfo info;
    int has_header;
    uint8_t *icc, *exif, *xmp;
    size_t icc_size, exif_size, xmp_size;
    size_t exif_offset;
    char message[TC_MESSAGE_CAPACITY];
};

static tc_status fail(tc_jxl_decoder *decoder, JxlDecoderStatus status, const char *what) {
    // libjxl 0.7 reports no detail beyond the status.
    if (status == JXL_DEC_NEED_MORE_INPUT) {
        snprintf(decoder->message, sizeof decoder->message, "file ends early (%s)", what);
        return TC_TRUNCATED;
    }
    snprintf(decoder->message, sizeof decoder->message, "libjxl refused the file (%s)", what);
    return TC_CORRUPT;
}

tc_jxl_decoder *tc_jxl_decoder_create(const uint8_t *data, size_t size) {
    if (tc_jxl_library_error()) return NULL;
    tc_jxl_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    decoder->data = data;
    decoder->size = size;
    decoder->jxl = tc_jxl.JxlDecoderCreate(NULL);
    if (!decoder->jxl) {
        free(decoder);
        return NULL;
    }
    return decoder;
}

void tc_jxl_decoder_destroy(tc_jxl_decoder *decoder) {
    if (!decoder) return;
    tc_jxl.JxlDecoderDestroy(decoder->jxl);
    free(decoder->icc);
    free(decoder->exif);
    free(decoder->xmp);
    free(decoder);
}

const char *tc_jxl_message(const tc_jxl_decoder *decoder) { return decoder->message; }

/// Asks for sRGB output where libjxl can give it (XYB images render to any encoded space).
static void prefer_srgb(tc_jxl_decoder *decoder) {
    if (decoder->info.uses_original_profile) return;
    JxlColorEncoding srgb;
    tc_jxl.JxlColorEncodingSetToSRGB(&srgb, decoder->info.num_color_channels == 1);
    tc_jxl.JxlDecoderSetPreferredColorProfile(decoder->jxl, &srgb);
}

static int is_srgb(const JxlColorEncoding *encoding) {
    return encoding->white_point == JXL_WHITE_POINT_D65 && encoding->transfer_function == JXL_TRANSFER_FUNCTION_SRGB
        && (encoding->color_space == JXL_COLOR_SPACE_GRAY || (encoding->color_space == JXL_COLOR_SPACE_RGB
                                                              && encoding->primaries == JXL_PRIMARIES_SRGB));
}

/// The ICC profile of the pixels the decoder will deliver, when they are not sRGB (or grey with sRGB's curve).
static void read_colour(tc_jxl_decoder *decoder) {
    JxlColorEncoding encoding;
    if (tc_jxl.JxlDecoderGetColorAsEncodedProfile(decoder->jxl, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &encoding)
            == JXL_DEC_SUCCESS && is_srgb(&encoding)) return;
    size_t size = 0;
    if (tc_jxl.JxlDecoderGetICCProfileSize(decoder->jxl, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &size) != JXL_DEC_SUCCESS
        || size == 0 || size > MAX_BOX_BYTES) return;
    decoder->icc = malloc(size);
    if (!decoder->icc) return;
    if (tc_jxl.JxlDecoderGetColorAsICCProfile(decoder->jxl, NULL, JXL_COLOR_PROFILE_TARGET_DATA, decoder->icc, size)
            == JXL_DEC_SUCCESS) {
        decoder->icc_size = size;
    } else {
        free(decoder->icc);
        decoder->icc = NULL;
    }
}

/// A metadata box being read: `target` is where it lands (Exif or XMP), grown as libjxl asks for room.
typedef struct {
    uint8_t **target;
    size_t *target_size;
    uint8_t *buffer;
    size_t capacity;
} box_reader;

static void box_finish(tc_jxl_decoder *decoder, box_reader *box) {
    if (!box->buffer) return;
    size_t unused = tc_jxl.JxlDecoderReleaseBoxBuffer(decoder->jxl);
    *box->target = box->buffer;
    *box->target_size = box->capacity - unused;
    box->buffer = NULL;
}

static int box_grow(tc_jxl_decoder *decoder, box_reader *box) {
    size_t unused = tc_jxl.JxlDecoderReleaseBoxBuffer(decoder->jxl);
    size_t used = box->capacity - unused;
    size_t capacity = box->capacity * 2;
    if (capacity > MAX_BOX_BYTES) return 0;
    uint8_t *grown = realloc(box->buffer, capacity);
    if (!grown) return 0;
    box->buffer = grown;
    box->capacity = capacity;
    return tc_jxl.JxlDecoderSetBoxBuffer(decoder->jxl, grown + used, capacity - used) == JXL_DEC_SUCCESS;
}

tc_status tc_jxl_read_header(tc_jxl_decoder *decoder, tc_jxl_header *header) {
    memset(header, 0, sizeof *header);
    JxlDecoder *jxl = decoder->jxl;
    if (tc_jxl.JxlDecoderSubscribeEvents(jxl, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_BOX) != JXL_DEC_SUCCESS
        || tc_jxl.JxlDecoderSetInput(jxl, decoder->data, decoder->size) != JXL_DEC_SUCCESS) {
        snprintf(decoder->message, sizeof decoder->message, "libjxl could not start");
        return TC_NO_MEMORY;
    }
    // The input is left open: libjxl then says NEED_MORE_INPUT for a file cut short (a closed input makes that
    // a plain error), which is the truncation we report.
    tc_jxl.JxlDecoderSetDecompressBoxes(jxl, JXL_TRUE);  // brob-compressed Exif/XMP
    box_reader box = {0};
    tc_status status = TC_OK;
    int colour = 0;
    for (;;) {
        JxlDecoderStatus event = tc_jxl.JxlDecoderProcessInput(jxl);
        if (event == JXL_DEC_BOX_NEED_MORE_OUTPUT) {
            if (!box_grow(decoder, &box)) {
                // Too large or no memory: the box is dropped, the image still decodes.
                tc_jxl.JxlDecoderReleaseBoxBuffer(jxl);
                free(box.buffer);
                box.buffer = NULL;
            }
            continue;
        }
        box_finish(decoder, &box);
        if (event == JXL_DEC_BASIC_INFO) {
            if (tc_jxl.JxlDecoderGetBasicInfo(jxl, &decoder->info) != JXL_DEC_SUCCESS) {
                status = fail(decoder, JXL_DEC_ERROR, "basic info");
                break;
            }
            decoder->has_header = 1;
        } else if (event == JXL_DEC_COLOR_ENCODING) {
            prefer_srgb(decoder);
            read_colour(decoder);
            colour = 1;
        } else if (event == JXL_DEC_BOX) {
            JxlBoxType type;
            if (tc_jxl.JxlDecoderGetBoxType(jxl, type, JXL_TRUE) != JXL_DEC_SUCCESS) continue;
            int is_exif = memcmp(type, "Exif", 4) == 0 && !decoder->exif;
            int is_xmp = memcmp(type, "xml ", 4) == 0 && !decoder->xmp;
            if (!is_exif && !is_xmp) continue;
            box.target = is_exif ? &decoder->exif : &decoder->xmp;
            box.target_size = is_exif ? &decoder->exif_size : &decoder->xmp_size;
            box.capacity = 4096;
            box.buffer = malloc(box.capacity);
            if (box.buffer && tc_jxl.JxlDecoderSetBoxBuffer(jxl, box.buffer, box.capacity) != JXL_DEC_SUCCESS) {
                free(box.buffer);
                box.buffer = NULL;
            }
        } else if (event == JXL_DEC_SUCCESS) {
            break;
        } else {
            // A file cut short after its headers still has a header; the decode reports the truncation.
            if (!(decoder->has_header && colour)) status = fail(decoder, event, "header");
            break;
        }
    }
    free(box.buffer);
    if (status != TC_OK) return status;
    if (!decoder->has_header || !colour) return fail(decoder, JXL_DEC_NEED_MORE_INPUT, "header");
    // The Exif box starts with a 4-byte offset to the TIFF header (ISO/IEC 18181-2).
    if (decoder->exif) {
        size_t offset = decoder->exif_size >= 4 ? ((size_t)decoder->exif[0] << 24 | (size_t)decoder->exif[1] << 16
                                                   | (size_t)decoder->exif[2] << 8 | decoder->exif[3]) : (size_t)-1;
        if (offset > decoder->exif_size - 4 || decoder->exif_size < 4) {
            free(decoder->exif);
            decoder->exif = NULL;
            decoder->exif_size = 0;
        } else {
            decoder->exif_offset = 4 + offset;
            decoder->exif_size -= decoder->exif_offset;
        }
    }
    const JxlBasicInfo *info = &decoder->info;
    int swap = info->orientation >= JXL_ORIENT_TRANSPOSE;
    header->width = (int)(swap ? info->ysize : info->xsize);
    header->height = (int)(swap ? info->xsize : info->ysize);
    header->bits_per_sample = (int)info->bits_per_sample;
    header->has_alpha = info->alpha_bits > 0;
    header->is_grey = info->num_color_channels == 1;
    header->have_animation = info->have_animation != 0;
    header->uses_original_profile = info->uses_original_profile != 0;
    header->orientation = (int)info->orientation;
    return TC_OK;
}

const uint8_t *tc_jxl_icc(const tc_jxl_decoder *decoder, size_t *length) {
    *length = decoder->icc_size;
    return decoder->icc_size ? decoder->icc : NULL;
}

const uint8_t *tc_jxl_exif(const tc_jxl_decoder *decoder, size_t *length) {
    *length = decoder->exif ? decoder->exif_size : 0;
    return *length ? decoder->exif + decoder->exif_offset : NULL;
}

const uint8_t *tc_jxl_xmp(const tc_jxl_decoder *decoder, size_t *length) {
    *length = decoder->xmp_size;
    return decoder->xmp_size ? decoder->xmp : NULL;
}

/// The first frame into `out`, the decoder reset (and its parallel runner, if any, set) already.
static tc_status decode_frame(tc_jxl_decoder *decoder, int channels, uint8_t *out, size_t stride) {
    JxlDecoder *jxl = decoder->jxl;
    if (tc_jxl.JxlDecoderSubscribeEvents(jxl, JXL_DEC_COLOR_ENCODING | JXL_DEC_FULL_IMAGE) != JXL_DEC_SUCCESS
        || tc_jxl.JxlDecoderSetInput(jxl, decoder->data, decoder->size) != JXL_DEC_SUCCESS) {
        snprintf(decoder->message, sizeof decoder->message, "libjxl could not start");
        return TC_NO_MEMORY;
    }
    const JxlBasicInfo *info = &decoder->info;  // input left open, as for the header
    int grey = info->num_color_channels == 1;
    int alpha = channels == 4;
    // Grey is asked for as grey (+alpha) and widened here: rows `stride` bytes apart either way (align).
    JxlPixelFormat format = {(uint32_t)(grey ? (alpha ? 2 : 1) : channels), JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, stride};
    int swap = info->orientation >= JXL_ORIENT_TRANSPOSE;
    size_t width = swap ? info->ysize : info->xsize, height = swap ? info->xsize : info->ysize;
    for (;;) {
        JxlDecoderStatus event = tc_jxl.JxlDecoderProcessInput(jxl);
        if (event == JXL_DEC_COLOR_ENCODING) {
            prefer_srgb(decoder);
        } else if (event == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            size_t needed = 0;
            if (tc_jxl.JxlDecoderImageOutBufferSize(jxl, &format, &needed) != JXL_DEC_SUCCESS || needed > stride * height
                || tc_jxl.JxlDecoderSetImageOutBuffer(jxl, &format, out, stride * height) != JXL_DEC_SUCCESS) {
                snprintf(decoder->message, sizeof decoder->message, "libjxl wants an output buffer of another size");
                return TC_CORRUPT;
            }
        } else if (event == JXL_DEC_FULL_IMAGE) {
            break;  // the first frame (of an animation, composited)
        } else {
            return fail(decoder, event == JXL_DEC_SUCCESS ? JXL_DEC_ERROR : event, "image");
        }
    }
    if (grey) {
        // Widen each row from its end, so the grey bytes are read before they are overwritten.
        size_t in_channels = alpha ? 2 : 1;
        for (size_t y = 0; y < height; y++) {
            uint8_t *row = out + y * stride;
            for (size_t x = width; x-- > 0;) {
                uint8_t value = row[x * in_channels];
                uint8_t a = alpha ? row[x * in_channels + 1] : 255;
                uint8_t *pixel = row + x * (size_t)channels;
                pixel[0] = pixel[1] = pixel[2] = value;
                if (alpha) pixel[3] = a;
            }
        }
    }
    return TC_OK;
}

tc_status tc_jxl_decode(tc_jxl_decoder *decoder, int channels, int threads, uint8_t *out, size_t stride) {
    if (!decoder->has_header) {
        snprintf(decoder->message, sizeof decoder->message, "header not read");
        return TC_CORRUPT;
    }
    JxlDecoder *jxl = decoder->jxl;
    tc_jxl.JxlDecoderReset(jxl);
    // One thread: no runner, libjxl works on the calling thread. More: that many workers while the caller waits, so
    // the decode uses `threads` cores; the pixels do not depend on it (libjxl's groups are independent).
    void *runner = NULL;
    if (threads > 1) {
        runner = tc_jxl.JxlThreadParallelRunnerCreate(NULL, (size_t)threads);
        if (!runner || tc_jxl.JxlDecoderSetParallelRunner(jxl, tc_jxl.JxlThreadParallelRunner, runner) != JXL_DEC_SUCCESS) {
            tc_jxl.JxlThreadParallelRunnerDestroy(runner);
            snprintf(decoder->message, sizeof decoder->message, "libjxl could not start %d threads", threads);
            return TC_NO_MEMORY;
        }
    }
    tc_status status = decode_frame(decoder, channels, out, stride);
    if (runner) {
        tc_jxl.JxlDecoderReset(jxl);  // libjxl lets go of the runner (and its frame state) before the workers stop
        tc_jxl.JxlThreadParallelRunnerDestroy(runner);
    }
    return status;
}

// MARK: Encoding

static tc_status encode_fail(tc_encoded *out, const char *what) {
    snprintf(out->message, sizeof out->message, "libjxl could not encode (%s)", what);
    return TC_CORRUPT;
}

tc_status tc_jxl_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels,
                        float distance, int effort, const tc_metadata *metadata, tc_encoded *out) {
    memset(out, 0, sizeof *out);
    const char *unloaded = tc_jxl_library_error();
    if (unloaded) {
        snprintf(out->message, sizeof out->message, "%s", unloaded);
        return TC_UNSUPPORTED;
    }
    JxlEncoder *encoder = tc_jxl.JxlEncoderCreate(NULL);
    if (!encoder) {
        snprintf(out->message, sizeof out->message, "out of memory creating the JPEG XL encoder");
        return TC_NO_MEMORY;
    }
    tc_status status = TC_OK;
    uint8_t *exif_box = NULL;
    int alpha = channels == 2 || channels == 4;
    int boxes = metadata && (metadata->exif_size || metadata->xmp_size);
    JxlBasicInfo info;
    tc_jxl.JxlEncoderInitBasicInfo(&info);
    info.xsize = (uint32_t)width;
    info.ysize = (uint32_t)height;
    info.bits_per_sample = 8;
    info.num_color_channels = channels <= 2 ? 1 : 3;
    info.num_extra_channels = alpha ? 1 : 0;
    info.alpha_bits = alpha ? 8 : 0;
    info.uses_original_profile = JXL_FALSE;  // lossy XYB
    if (boxes && (tc_jxl.JxlEncoderUseContainer(encoder, JXL_TRUE) != JXL_ENC_SUCCESS
                  || tc_jxl.JxlEncoderUseBoxes(encoder) != JXL_ENC_SUCCESS)) {
        status = encode_fail(out, "container");
        goto done;
    }
    if (tc_jxl.JxlEncoderSetBasicInfo(encoder, &info) != JXL_ENC_SUCCESS) {
        status = encode_fail(out, "basic info");
        goto done;
    }
    JxlColorEncoding srgb;
    tc_jxl.JxlColorEncodingSetToSRGB(&srgb, info.num_color_channels == 1);
    if (metadata && metadata->icc_size) {
        if (tc_jxl.JxlEncoderSetICCProfile(encoder, metadata->icc, metadata->icc_size) != JXL_ENC_SUCCESS) {
            status = encode_fail(out, "ICC profile");
            goto done;
        }
    } else if (tc_jxl.JxlEncoderSetColorEncoding(encoder, &srgb) != JXL_ENC_SUCCESS) {
        status = encode_fail(out, "colour encoding");
        goto done;
    }
    if (boxes && metadata->exif_size) {
        // A zero offset: the TIFF header follows the 4 bytes at once.
        exif_box = calloc(1, metadata->exif_size + 4);
        if (!exif_box) {
            status = TC_NO_MEMORY;
            snprintf(out->message, sizeof out->message, "out of memory");
            goto done;
        }
        memcpy(exif_box + 4, metadata->exif, metadata->exif_size);
        if (tc_jxl.JxlEncoderAddBox(encoder, "Exif", exif_box, metadata->exif_size + 4, JXL_FALSE) != JXL_ENC_SUCCESS) {
            status = encode_fail(out, "Exif box");
            goto done;
        }
    }
    if (boxes && metadata->xmp_size
        && tc_jxl.JxlEncoderAddBox(encoder, "xml ", metadata->xmp, metadata->xmp_size, JXL_FALSE) != JXL_ENC_SUCCESS) {
        status = encode_fail(out, "XMP box");
        goto done;
    }
    JxlEncoderFrameSettings *settings = tc_jxl.JxlEncoderFrameSettingsCreate(encoder, NULL);
    if (!settings || tc_jxl.JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, effort) != JXL_ENC_SUCCESS
        || tc_jxl.JxlEncoderSetFrameDistance(settings, distance) != JXL_ENC_SUCCESS) {
        status = encode_fail(out, "frame settings");
        goto done;
    }
    JxlPixelFormat format = {(uint32_t)channels, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, stride};
    if (tc_jxl.JxlEncoderAddImageFrame(settings, &format, pixels, stride * (size_t)height) != JXL_ENC_SUCCESS) {
        status = encode_fail(out, "frame");
        goto done;
    }
    tc_jxl.JxlEncoderCloseInput(encoder);
    size_t capacity = 65536, used = 0;
    uint8_t *buffer = malloc(capacity);
    for (;;) {
        if (!buffer) {
            status = TC_NO_MEMORY;
            snprintf(out->message, sizeof out->message, "out of memory");
            goto done;
        }
        uint8_t *next = buffer + used;
        size_t available = capacity - used;
        JxlEncoderStatus result = tc_jxl.JxlEncoderProcessOutput(encoder, &next, &available);
        used = (size_t)(next - buffer);
        if (result == JXL_ENC_SUCCESS) break;
        if (result != JXL_ENC_NEED_MORE_OUTPUT) {
            free(buffer);
            status = encode_fail(out, "output");
            goto done;
        }
        capacity *= 2;
        uint8_t *grown = realloc(buffer, capacity);
        if (!grown) free(buffer);
        buffer = grown;
    }
    out->data = buffer;
    out->size = used;
done:
    free(exif_box);
    tc_jxl.JxlEncoderDestroy(encoder);
    return status;
}
