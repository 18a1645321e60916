// libtiff, opened at first use (Sources/CJpegPngGlue/include/tc_library.h says why): the functions the glue calls,
// through pointers of their own types. A call the list misses fails to link (libtiff is not on the link line).
#ifndef THUMBCACHE_TIFF_LIBRARY_H
#define THUMBCACHE_TIFF_LIBRARY_H

#include <tiffio.h>

#define TC_TIFF_FUNCTIONS(X) \
    X(TIFFClientOpenExt) \
    X(TIFFClose) \
    X(TIFFComputeTile) \
    X(TIFFDefaultStripSize) \
    X(TIFFGetField) \
    X(TIFFGetFieldDefaulted) \
    X(TIFFGetStrileByteCountWithErr) \
    X(TIFFGetStrileOffsetWithErr) \
    X(TIFFIsCODECConfigured) \
    X(TIFFIsTiled) \
    X(TIFFNumberOfStrips) \
    X(TIFFNumberOfTiles) \
    X(TIFFOpenOptionsAlloc) \
    X(TIFFOpenOptionsFree) \
    X(TIFFOpenOptionsSetErrorHandlerExtR) \
    X(TIFFOpenOptionsSetMaxSingleMemAlloc) \
    X(TIFFOpenOptionsSetWarningHandlerExtR) \
    X(TIFFRGBAImageBegin) \
    X(TIFFRGBAImageEnd) \
    X(TIFFRGBAImageGet) \
    X(TIFFRGBAImageOK) \
    X(TIFFReadDirectory) \
    X(TIFFReadEncodedTile) \
    X(TIFFReadScanline) \
    X(TIFFSetDirectory) \
    X(TIFFSetErrorHandler) \
    X(TIFFSetField) \
    X(TIFFSetSubDirectory) \
    X(TIFFSetWarningHandler) \
    X(TIFFTileSize) \
    X(TIFFWriteDirectory) \
    X(TIFFWriteScanline)

#define TC_FUNCTION_POINTER(name) __typeof__(name) *name;
extern struct tc_tiff_functions { TC_TIFF_FUNCTIONS(TC_FUNCTION_POINTER) } tc_tiff;
#undef TC_FUNCTION_POINTER

#endif
