// libavif, opened at first use (Sources/CJpegPngGlue/include/tc_library.h says why): the functions the glue calls,
// through pointers of their own types. A call the list misses fails to link (libavif is not on the link line).
#ifndef THUMBCACHE_AVIF_LIBRARY_H
#define THUMBCACHE_AVIF_LIBRARY_H

#include <avif/avif.h>

#define TC_AVIF_FUNCTIONS(X) \
    X(avifColorPrimariesGetValues) \
    X(avifDecoderCreate) \
    X(avifDecoderDestroy) \
    X(avifDecoderNextImage) \
    X(avifDecoderParse) \
    X(avifDecoderSetIOMemory) \
    X(avifEncoderCreate) \
    X(avifEncoderDestroy) \
    X(avifEncoderSetCodecSpecificOption) \
    X(avifEncoderWrite) \
    X(avifImageCreate) \
    X(avifImageDestroy) \
    X(avifImageRGBToYUV) \
    X(avifImageSetMetadataExif) \
    X(avifImageSetMetadataXMP) \
    X(avifImageSetProfileICC) \
    X(avifImageYUVToRGB) \
    X(avifRGBImageSetDefaults) \
    X(avifRWDataFree) \
    X(avifResultToString)

#define TC_FUNCTION_POINTER(name) __typeof__(name) *name;
extern struct tc_avif_functions { TC_AVIF_FUNCTIONS(TC_FUNCTION_POINTER) } tc_avif;
#undef TC_FUNCTION_POINTER

#endif
