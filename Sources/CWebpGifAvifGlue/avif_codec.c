#include "CWebpGifAvifGlue.h"
#include "avif_library.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tc_avif_decoder {
    const uint8_t *data;
    size_t size;
    avifDecoder *avif;
    int parsed;
    char message[TC_MESSAGE_CAPACITY];
};

static tc_status fail(tc_avif_decoder *decoder, avifResult result) {
    // libavif's diagnostics say which box or property is wrong; fall back to the result's name.
    const char *detail = decoder->avif && decoder->avif->diag.error[0] ? decoder->avif->diag.error : tc_avif.avifResultToString(result);
    snprintf(decoder->message, sizeof decoder->message, "%s", detail);
    switch (result) {
    case AVIF_RESULT_OUT_OF_MEMORY: return TC_NO_MEMORY;
    case AVIF_RESULT_TRUNCATED_DATA: return TC_TRUNCATED;
    case AVIF_RESULT_NO_CODEC_AVAILABLE: return TC_UNSUPPORTED;
    case AVIF_RESULT_BMFF_PARSE_FAILED:
        // libavif checks each item's extent against the data while parsing.
        return strstr(detail, "truncated") ? TC_TRUNCATED : TC_CORRUPT;
    default: return TC_CORRUPT;
    }
}

tc_avif_decoder *tc_avif_decoder_create(const uint8_t *data, size_t size, uint32_t size_limit,
                                        uint32_t dimension_limit) {
    if (tc_avif_library_error()) return NULL;
    tc_avif_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    decoder->data = data;
    decoder->size = size;
    decoder->avif = tc_avif.avifDecoderCreate();
    if (!decoder->avif) {
        free(decoder);
        return NULL;
    }
    avifDecoder *avif = decoder->avif;
    avif->maxThreads = 1;
    avif->strictFlags = AVIF_STRICT_ENABLED;
    // Exif and XMP are read for outputs that keep them (`MetadataPolicy`); they are items of the file, which is in
    // memory already. Orientation still comes from irot/imir only (AVIFDecoder never reads it from Exif).
    avif->ignoreExif = AVIF_FALSE;
    avif->ignoreXMP = AVIF_FALSE;
    if (size_limit) avif->imageSizeLimit = size_limit;
    if (dimension_limit) avif->imageDimensionLimit = dimension_limit;
    avif->imageCountLimit = 0;      // only the first frame is ever decoded
    return decoder;
}

void tc_avif_decoder_destroy(tc_avif_decoder *decoder) {
    if (!decoder) return;
    tc_avif.avifDecoderDestroy(decoder->avif);
    free(decoder);
}

const char *tc_avif_message(const tc_avif_decoder *decoder) { return decoder->message; }

tc_status tc_avif_read_header(tc_avif_decoder *decoder, tc_avif_header *header) {
    memset(header, 0, sizeof *header);
    avifDecoder *avif = decoder->avif;
    avifResult result = tc_avif.avifDecoderSetIOMemory(avif, decoder->data, decoder->size);
    if (result == AVIF_RESULT_OK) result = tc_avif.avifDecoderParse(avif);
    if (result != AVIF_RESULT_OK) return fail(decoder, result);
    decoder->parsed = 1;
    const avifImage *image = avif->image;
    header->width = (int)image->width;
    header->height = (int)image->height;
    header->depth = (int)image->depth;
    header->yuv_format = image->yuvFormat;
    header->has_alpha = avif->alphaPresent != 0;
    header->frame_count = avif->imageCount;
    header->rotation = (image->transformFlags & AVIF_TRANSFORM_IROT) ? image->irot.angle & 3 : 0;
    header->mirror = (image->transformFlags & AVIF_TRANSFORM_IMIR) ? image->imir.mode : -1;
    header->color_primaries = image->colorPrimaries;
    header->transfer = image->transferCharacteristics;
    header->matrix = image->matrixCoefficients;
    return TC_OK;
}

const uint8_t *tc_avif_icc(const tc_avif_decoder *decoder, size_t *length) {
    const avifImage *image = decoder->parsed ? decoder->avif->image : NULL;
    *length = image && image->icc.size ? image->icc.size : 0;
    return *length ? image->icc.data : NULL;
}

const uint8_t *tc_avif_exif(const tc_avif_decoder *decoder, size_t *length) {
    const avifImage *image = decoder->parsed ? decoder->avif->image : NULL;
    *length = image && image->exif.size ? image->exif.size : 0;
    return *length ? image->exif.data : NULL;
}

const uint8_t *tc_avif_xmp(const tc_avif_decoder *decoder, size_t *length) {
    const avifImage *image = decoder->parsed ? decoder->avif->image : NULL;
    *length = image && image->xmp.size ? image->xmp.size : 0;
    return *length ? image->xmp.data : NULL;
}

// MARK: nclx to sRGB

static double srgb_to_linear(double v) { return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4); }
static double linear_to_srgb(double v) {
    if (v <= 0) return 0;
    if (v >= 1) return 1;
    return v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055;
}

/// SMPTE ST 2084 to linear light, 1.0 = 203 cd/m2 (the reference white of BT.2408).
static double pq_to_linear(double v) {
    const double m1 = 0.1593017578125, m2 = 78.84375, c1 = 0.8359375, c2 = 18.8515625, c3 = 18.6875;
    double p = pow(v, 1 / m2);
    double n = p - c1 > 0 ? p - c1 : 0;
    return pow(n / (c2 - c3 * p), 1 / m1) * 10000.0 / 203.0;
}

/// HLG inverse OETF with the nominal 1000 cd/m2 system gamma folded into a plain 1.2 power,
/// scaled so that 75% HLG (reference white) is about 1.0.
static double hlg_to_linear(double v) {
    const double a = 0.17883277, b = 0.28466892, c = 0.55991073;
    double scene = v <= 0.5 ? v * v / 3 : (exp((v - c) / a) + b) / 12;
    return pow(scene, 1.2) * 1000.0 / 203.0;
}

static double to_linear(int transfer, double v) {
    switch (transfer) {
    case AVIF_TRANSFER_CHARACTERISTICS_SMPTE2084: return pq_to_linear(v);
    case AVIF_TRANSFER_CHARACTERISTICS_HLG: return hlg_to_linear(v);
    case AVIF_TRANSFER_CHARACTERISTICS_LINEAR: return v;
    case AVIF_TRANSFER_CHARACTERISTICS_BT470M: return pow(v, 2.2);
    case AVIF_TRANSFER_CHARACTERISTICS_BT470BG: return pow(v, 2.8);
    default: return srgb_to_linear(v);  // sRGB, BT.709/601/2020 SDR curves and unspecified
    }
}

/// RGB to XYZ for the primaries and white point given as x,y pairs (r, g, b, white).
static void rgb_to_xyz(const float p[8], double m[9]) {
    double X[3], Z[3];
    for (int i = 0; i < 3; i++) {
        double x = p[i * 2], y = p[i * 2 + 1];
        X[i] = x / y;
        Z[i] = (1 - x - y) / y;
    }
    double wx = p[6] / p[7], wz = (1 - p[6] - p[7]) / p[7];
    // Solve [X; 1; Z] * S = white for the channel scales S (Cramer's rule).
    double a[9] = {X[0], X[1], X[2], 1, 1, 1, Z[0], Z[1], Z[2]};
    double det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6]);
    double w[3] = {wx, 1, wz}, s[3];
    for (int c = 0; c < 3; c++) {
        double t[9];
        memcpy(t, a, sizeof t);
        for (int r = 0; r < 3; r++) t[r * 3 + c] = w[r];
        s[c] = (t[0] * (t[4] * t[8] - t[5] * t[7]) - t[1] * (t[3] * t[8] - t[5] * t[6]) + t[2] * (t[3] * t[7] - t[4] * t[6])) / det;
    }
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) m[r * 3 + c] = a[r * 3 + c] * s[c];
}

static void invert3(const double m[9], double out[9]) {
    double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
    out[0] = (m[4] * m[8] - m[5] * m[7]) / det;
    out[1] = (m[2] * m[7] - m[1] * m[8]) / det;
    out[2] = (m[1] * m[5] - m[2] * m[4]) / det;
    out[3] = (m[5] * m[6] - m[3] * m[8]) / det;
    out[4] = (m[0] * m[8] - m[2] * m[6]) / det;
    out[5] = (m[2] * m[3] - m[0] * m[5]) / det;
    out[6] = (m[3] * m[7] - m[4] * m[6]) / det;
    out[7] = (m[1] * m[6] - m[0] * m[7]) / det;
    out[8] = (m[0] * m[4] - m[1] * m[3]) / det;
}

/// True when the pixels are meant as sRGB already (BT.709 primaries or unspecified, an SDR curve):
/// converting would only cost time (and Pillow, libvips and browsers show them as they are).
static int is_srgb_like(int primaries, int transfer) {
    int sdr = transfer != AVIF_TRANSFER_CHARACTERISTICS_SMPTE2084 && transfer != AVIF_TRANSFER_CHARACTERISTICS_HLG
        && transfer != AVIF_TRANSFER_CHARACTERISTICS_LINEAR && transfer != AVIF_TRANSFER_CHARACTERISTICS_BT470M
        && transfer != AVIF_TRANSFER_CHARACTERISTICS_BT470BG;
    return sdr && (primaries == AVIF_COLOR_PRIMARIES_BT709 || primaries == AVIF_COLOR_PRIMARIES_UNSPECIFIED);
}

/// 16-bit RGB(A) in the image's nclx space to 8-bit sRGB; HDR is tone mapped per channel with an
/// extended Reinhard curve whose white is the format's nominal peak.
static void nclx_to_srgb(const avifImage *image, const uint16_t *in, size_t in_stride, int channels,
                         uint8_t *out, size_t out_stride) {
    float primaries[8], srgb_primaries[8];
    tc_avif.avifColorPrimariesGetValues(image->colorPrimaries, primaries);
    tc_avif.avifColorPrimariesGetValues(AVIF_COLOR_PRIMARIES_BT709, srgb_primaries);
    double source[9], target[9], inverse[9], m[9];
    rgb_to_xyz(primaries, source);
    rgb_to_xyz(srgb_primaries, target);
    invert3(target, inverse);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            m[r * 3 + c] = inverse[r * 3] * source[c] + inverse[r * 3 + 1] * source[3 + c] + inverse[r * 3 + 2] * source[6 + c];
    int transfer = image->transferCharacteristics;
    double peak = transfer == AVIF_TRANSFER_CHARACTERISTICS_SMPTE2084 ? 10000.0 / 203.0
        : transfer == AVIF_TRANSFER_CHARACTERISTICS_HLG ? 1000.0 / 203.0 : 0;
    // A lookup per code value: the curves are the slow part.
    double *curve = malloc(sizeof(double) * 65536);
    uint8_t *encode = malloc(4097);
    if (!curve || !encode) {
        free(curve);
        free(encode);
        return;
    }
    for (int i = 0; i < 65536; i++) curve[i] = to_linear(transfer, i / 65535.0);
    for (int i = 0; i <= 4096; i++) encode[i] = (uint8_t)lround(linear_to_srgb(i / 4096.0) * 255);
    for (uint32_t y = 0; y < image->height; y++) {
        const uint16_t *row = (const uint16_t *)((const uint8_t *)in + y * in_stride);
        uint8_t *target_row = out + y * out_stride;
        for (uint32_t x = 0; x < image->width; x++) {
            const uint16_t *pixel = row + x * (size_t)channels;
            double lin[3] = {curve[pixel[0]], curve[pixel[1]], curve[pixel[2]]};
            for (int c = 0; c < 3; c++) {
                double v = m[c * 3] * lin[0] + m[c * 3 + 1] * lin[1] + m[c * 3 + 2] * lin[2];
                if (peak > 0 && v > 0) v = v * (1 + v / (peak * peak)) / (1 + v);
                v = v < 0 ? 0 : v > 1 ? 1 : v;
                target_row[x * (size_t)channels + c] = encode[(int)lround(v * 4096)];
            }
            if (channels == 4) target_row[x * 4 + 3] = (uint8_t)((pixel[3] * 255u + 32767u) / 65535u);
        }
    }
    free(curve);
    free(encode);
}

tc_status tc_avif_decode(tc_avif_decoder *decoder, int channels, int to_srgb, uint8_t *out, size_t stride) {
    if (!decoder->parsed) {
        snprintf(decoder->message, sizeof decoder->message, "header not read");
        return TC_CORRUPT;
    }
    avifDecoder *avif = decoder->avif;
    avifResult result = tc_avif.avifDecoderNextImage(avif);  // the first image; of a sequence, its first frame
    if (result != AVIF_RESULT_OK) return fail(decoder, result);
    const avifImage *image = avif->image;
    avifRGBImage rgb;
    tc_avif.avifRGBImageSetDefaults(&rgb, image);
    rgb.format = channels == 4 ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB;
    rgb.alphaPremultiplied = AVIF_FALSE;
    int convert = to_srgb && image->icc.size == 0 && !is_srgb_like(image->colorPrimaries, image->transferCharacteristics);
    if (!convert) {
        rgb.depth = 8;
        rgb.pixels = out;
        rgb.rowBytes = (uint32_t)stride;
        result = tc_avif.avifImageYUVToRGB(image, &rgb);
        if (result != AVIF_RESULT_OK) return fail(decoder, result);
        return TC_OK;
    }
    rgb.depth = 16;
    rgb.rowBytes = image->width * (uint32_t)channels * 2;
    rgb.pixels = malloc((size_t)rgb.rowBytes * image->height);
    if (!rgb.pixels) return fail(decoder, AVIF_RESULT_OUT_OF_MEMORY);
    result = tc_avif.avifImageYUVToRGB(image, &rgb);
    if (result == AVIF_RESULT_OK) nclx_to_srgb(image, (const uint16_t *)rgb.pixels, rgb.rowBytes, channels, out, stride);
    free(rgb.pixels);
    return result == AVIF_RESULT_OK ? TC_OK : fail(decoder, result);
}

double tc_avif_frame_duration(const tc_avif_decoder *decoder) { return decoder->avif->imageTiming.duration; }

// MARK: Encoding

tc_status tc_avif_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels, int monochrome,
                         int quality, int speed, const tc_metadata *metadata, tc_encoded *out) {
    memset(out, 0, sizeof *out);
    const char *unloaded = tc_avif_library_error();
    if (unloaded) {
        snprintf(out->message, sizeof out->message, "%s", unloaded);
        return TC_UNSUPPORTED;
    }
    avifImage *image = tc_avif.avifImageCreate((uint32_t)width, (uint32_t)height, 8,
                                       monochrome ? AVIF_PIXEL_FORMAT_YUV400 : AVIF_PIXEL_FORMAT_YUV420);
    avifEncoder *encoder = tc_avif.avifEncoderCreate();
    avifRWData output = AVIF_DATA_EMPTY;
    tc_status status = TC_OK;
    if (!image || !encoder) {
        snprintf(out->message, sizeof out->message, "out of memory creating the AVIF encoder");
        status = TC_NO_MEMORY;
        goto done;
    }
    image->colorPrimaries = AVIF_COLOR_PRIMARIES_BT709;
    image->transferCharacteristics = AVIF_TRANSFER_CHARACTERISTICS_SRGB;
    image->matrixCoefficients = AVIF_MATRIX_COEFFICIENTS_BT601;
    image->yuvRange = AVIF_RANGE_FULL;
    if (metadata) {
        if (metadata->exif_size) tc_avif.avifImageSetMetadataExif(image, metadata->exif, metadata->exif_size);
        if (metadata->xmp_size) tc_avif.avifImageSetMetadataXMP(image, metadata->xmp, metadata->xmp_size);
        if (metadata->icc_size) tc_avif.avifImageSetProfileICC(image, metadata->icc, metadata->icc_size);
    }
    avifRGBImage rgb;
    tc_avif.avifRGBImageSetDefaults(&rgb, image);
    rgb.format = channels == 4 ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB;
    rgb.depth = 8;
    rgb.pixels = (uint8_t *)pixels;
    rgb.rowBytes = (uint32_t)stride;
    avifResult result = tc_avif.avifImageRGBToYUV(image, &rgb);
    if (result == AVIF_RESULT_OK) {
        encoder->codecChoice = AVIF_CODEC_CHOICE_AOM;
        encoder->maxThreads = 1;
        encoder->speed = speed;
        // libavif 1.x's mapping of quality to a quantizer, used as aom's constant-quality level.
        int quantizer = ((100 - quality) * 63 + 50) / 100;
        encoder->minQuantizer = AVIF_QUANTIZER_BEST_QUALITY;
        encoder->maxQuantizer = AVIF_QUANTIZER_WORST_QUALITY;
        encoder->minQuantizerAlpha = AVIF_QUANTIZER_LOSSLESS;
        encoder->maxQuantizerAlpha = AVIF_QUANTIZER_LOSSLESS;
        char level[8];
        snprintf(level, sizeof level, "%d", quantizer);
        tc_avif.avifEncoderSetCodecSpecificOption(encoder, "end-usage", "q");
        tc_avif.avifEncoderSetCodecSpecificOption(encoder, "cq-level", level);
        result = tc_avif.avifEncoderWrite(encoder, image, &output);
    }
    if (result != AVIF_RESULT_OK) {
        snprintf(out->message, sizeof out->message, "%s", encoder->diag.error[0] ? encoder->diag.error : tc_avif.avifResultToString(result));
        status = result == AVIF_RESULT_OUT_OF_MEMORY ? TC_NO_MEMORY
            : result == AVIF_RESULT_NO_CODEC_AVAILABLE ? TC_UNSUPPORTED : TC_CORRUPT;
        goto done;
    }
    out->data = malloc(output.size);
    if (!out->data) {
        snprintf(out->message, sizeof out->message, "out of memory");
        status = TC_NO_MEMORY;
        goto done;
    }
    memcpy(out->data, output.data, output.size);
    out->size = output.size;
done:
    tc_avif.avifRWDataFree(&output);
    if (encoder) tc_avif.avifEncoderDestroy(encoder);
    if (image) tc_avif.avifImageDestroy(image);
    return status;
}
