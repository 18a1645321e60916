#include "CJpegPngGlue.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lcms2.h>

struct tc_icc_transform {
    cmsHTRANSFORM transform;
};

// Each call gets its own LittleCMS context so errors are reported per call, not through
// a process-wide handler, and concurrent thumbnails never share state.
typedef struct {
    char *message;
} error_sink;

static void on_lcms_error(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)code;
    error_sink *sink = cmsGetContextUserData(context);
    if (sink && sink->message && sink->message[0] == 0) snprintf(sink->message, TC_MESSAGE_CAPACITY, "%s", text);
}

// sRGB's encoding of linear light (IEC 61966-2-1), 0...1.
static double srgb_encode(double linear) {
    return linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055;
}

// The colourants (PCS XYZ, D50-relative as profiles store them) as the columns of a matrix; 0 if one is missing.
static int read_colourants(cmsHPROFILE profile, double matrix[3][3]) {
    const cmsTagSignature tags[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    for (int column = 0; column < 3; column++) {
        const cmsCIEXYZ *xyz = cmsReadTag(profile, tags[column]);
        if (!xyz) return 0;
        matrix[0][column] = xyz->X;
        matrix[1][column] = xyz->Y;
        matrix[2][column] = xyz->Z;
    }
    return 1;
}

static int invert(double m[3][3], double inverse[3][3]) {
    double determinant = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
                       - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                       + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    if (fabs(determinant) < 1e-9) return 0;
    for (int row = 0; row < 3; row++) {
        for (int column = 0; column < 3; column++) {
            int a = (column + 1) % 3, b = (column + 2) % 3, c = (row + 1) % 3, d = (row + 2) % 3;
            inverse[row][column] = (m[a][c] * m[b][d] - m[a][d] * m[b][c]) / determinant;
        }
    }
    return 1;
}

// How far converting from `profile` to `srgb` (relative colorimetric, both matrix-shapers) could move an 8-bit value,
// in levels, before rounding, or HUGE_VAL when the tags do not describe the transform (a lookup table is used
// instead, or a tag is missing). The media white point is not compared: relative colorimetric maps white to white
// whatever it says (the standard IEC profile stores D65 there, LittleCMS's own sRGB D50). The bound adds two parts:
// - the matrix: with E = sRGB's colourants⁻¹ × the profile's − I, an output channel moves by E's off-diagonal
//   entries times linear values up to 1, hardest where the encoding is steepest (12.92 at black), and by its
//   diagonal entry times its own value (linear × slope at most 0.44 on the power segment);
// - the curves: each channel's curve against sRGB's, measured where it matters, as 8-bit levels of the encoded
//   value, at 1024 points and every level.
static double srgb_deviation(cmsHPROFILE profile, cmsHPROFILE srgb) {
    if (cmsGetColorSpace(profile) != cmsSigRgbData || cmsGetPCS(profile) != cmsSigXYZData
        || !cmsIsMatrixShaper(profile) || cmsIsCLUT(profile, INTENT_RELATIVE_COLORIMETRIC, LCMS_USED_AS_INPUT)) {
        return HUGE_VAL;
    }
    double own[3][3], reference[3][3], inverse[3][3];
    if (!read_colourants(profile, own) || !read_colourants(srgb, reference) || !invert(reference, inverse)) return HUGE_VAL;
    double matrix = 0;
    for (int row = 0; row < 3; row++) {
        double across = 0, along = 0;
        for (int column = 0; column < 3; column++) {
            double entry = -(row == column);
            for (int k = 0; k < 3; k++) entry += inverse[row][k] * own[k][column];
            if (row == column) along = fabs(entry); else across += fabs(entry);
        }
        matrix = fmax(matrix, 255 * (12.92 * across + 0.44 * along));
    }
    if (!(matrix < 2)) return HUGE_VAL;  // far from sRGB already: no need to sample the curves
    const cmsTagSignature curves[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    double curve = 0;
    for (int channel = 0; channel < 3; channel++) {
        cmsToneCurve *tone = cmsReadTag(profile, curves[channel]);
        if (!tone) return HUGE_VAL;
        for (int step = 0; step <= 1024 + 255; step++) {
            double value = step <= 1024 ? step / 1024.0 : (step - 1024) / 255.0;
            curve = fmax(curve, 255 * fabs(srgb_encode(cmsEvalToneCurveFloat(tone, (cmsFloat32Number)value)) - value));
        }
    }
    return matrix + curve;
}

int tc_icc_inspect(const uint8_t *profile, size_t size, tc_icc_info *info) {
    memset(info, 0, sizeof *info);
    error_sink sink = {NULL};
    cmsContext context = cmsCreateContext(NULL, &sink);
    if (!context) return 0;
    cmsSetLogErrorHandlerTHR(context, on_lcms_error);
    cmsHPROFILE handle = cmsOpenProfileFromMemTHR(context, profile, (cmsUInt32Number)size);
    if (!handle) {
        cmsDeleteContext(context);
        return 0;
    }
    switch (cmsGetColorSpace(handle)) {
    case cmsSigRgbData: info->color_space = TC_ICC_SPACE_RGB; break;
    case cmsSigCmykData: info->color_space = TC_ICC_SPACE_CMYK; break;
    case cmsSigGrayData: info->color_space = TC_ICC_SPACE_GRAY; break;
    default: info->color_space = TC_ICC_SPACE_OTHER; break;
    }
    cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", info->description, sizeof info->description);
    info->srgb_deviation = HUGE_VAL;
    cmsHPROFILE srgb = cmsCreate_sRGBProfileTHR(context);
    if (srgb) {
        info->srgb_deviation = srgb_deviation(handle, srgb);
        cmsCloseProfile(srgb);
    }
    cmsCloseProfile(handle);
    cmsDeleteContext(context);
    return 1;
}

tc_icc_transform *tc_icc_create(const uint8_t *profile, size_t size, tc_pixel_layout input, char *message) {
    message[0] = 0;
    error_sink sink = {message};
    cmsContext context = cmsCreateContext(NULL, &sink);
    if (!context) {
        snprintf(message, TC_MESSAGE_CAPACITY, "out of memory");
        return NULL;
    }
    cmsSetLogErrorHandlerTHR(context, on_lcms_error);
    cmsHPROFILE source = cmsOpenProfileFromMemTHR(context, profile, (cmsUInt32Number)size);
    cmsHPROFILE srgb = cmsCreate_sRGBProfileTHR(context);
    cmsUInt32Number in_format = TYPE_RGB_8, out_format = TYPE_RGB_8, flags = 0;
    cmsColorSpaceSignature wanted = cmsSigRgbData;
    switch (input) {
    case TC_PIXELS_RGB: break;
    case TC_PIXELS_RGBA:
        in_format = TYPE_RGBA_8;
        out_format = TYPE_RGBA_8;
        flags = cmsFLAGS_COPY_ALPHA;
        break;
    case TC_PIXELS_CMYK:
        in_format = TYPE_CMYK_8;
        wanted = cmsSigCmykData;
        break;
    case TC_PIXELS_CMYK_INVERTED:  // Adobe's convention: 255 means no ink
        in_format = TYPE_CMYK_8_REV;
        wanted = cmsSigCmykData;
        break;
    }
    cmsHTRANSFORM transform = NULL;
    if (!source || !srgb) {
        if (!message[0]) snprintf(message, TC_MESSAGE_CAPACITY, "unreadable ICC profile");
    } else if (cmsGetColorSpace(source) != wanted) {
        snprintf(message, TC_MESSAGE_CAPACITY, "ICC profile colour space does not match the pixels");
    } else {
        // Relative colorimetric, like libvips' default intent: in-gamut colours stay exact.
        transform = cmsCreateTransformTHR(context, source, in_format, srgb, out_format,
                                          INTENT_RELATIVE_COLORIMETRIC, flags | cmsFLAGS_BLACKPOINTCOMPENSATION);
        if (!transform && !message[0]) snprintf(message, TC_MESSAGE_CAPACITY, "cannot build an ICC transform");
    }
    if (source) cmsCloseProfile(source);
    if (srgb) cmsCloseProfile(srgb);
    tc_icc_transform *result = NULL;
    if (transform) {
        result = malloc(sizeof *result);
        if (result) {
            result->transform = transform;
        } else {
            cmsDeleteTransform(transform);
            snprintf(message, TC_MESSAGE_CAPACITY, "out of memory");
        }
    }
    // The transform keeps its own reference to the context's plug-in data; the sink must not be
    // used after this call, so detach it.
    if (result) cmsSetLogErrorHandlerTHR(context, NULL);
    if (!result) cmsDeleteContext(context);
    return result;
}

void tc_icc_apply(tc_icc_transform *t, const uint8_t *in, uint8_t *out, size_t pixel_count) {
    cmsDoTransform(t->transform, in, out, (cmsUInt32Number)pixel_count);
}

void tc_icc_destroy(tc_icc_transform *t) {
    if (!t) return;
    cmsContext context = cmsGetTransformContextID(t->transform);
    cmsDeleteTransform(t->transform);
    cmsDeleteContext(context);
    free(t);
}
