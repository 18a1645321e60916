#include "CJpegPngGlue.h"

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
