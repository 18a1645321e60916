// libjxl and its thread pool, opened at first use (tc_library.h says why): the functions the glue calls, through
// pointers of their own types. A call the lists miss fails to link (the libraries are not on the link line).
#ifndef THUMBCACHE_JXL_LIBRARY_H
#define THUMBCACHE_JXL_LIBRARY_H

#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/thread_parallel_runner.h>

#define TC_JXL_FUNCTIONS(X) \
    X(JxlColorEncodingSetToSRGB) \
    X(JxlDecoderCreate) \
    X(JxlDecoderDestroy) \
    X(JxlDecoderGetBasicInfo) \
    X(JxlDecoderGetBoxType) \
    X(JxlDecoderGetColorAsEncodedProfile) \
    X(JxlDecoderGetColorAsICCProfile) \
    X(JxlDecoderGetICCProfileSize) \
    X(JxlDecoderImageOutBufferSize) \
    X(JxlDecoderProcessInput) \
    X(JxlDecoderReleaseBoxBuffer) \
    X(JxlDecoderReset) \
    X(JxlDecoderSetBoxBuffer) \
    X(JxlDecoderSetDecompressBoxes) \
    X(JxlDecoderSetImageOutBuffer) \
    X(JxlDecoderSetInput) \
    X(JxlDecoderSetParallelRunner) \
    X(JxlDecoderSetPreferredColorProfile) \
    X(JxlDecoderSubscribeEvents) \
    X(JxlEncoderAddBox) \
    X(JxlEncoderAddImageFrame) \
    X(JxlEncoderCloseInput) \
    X(JxlEncoderCreate) \
    X(JxlEncoderDestroy) \
    X(JxlEncoderFrameSettingsCreate) \
    X(JxlEncoderFrameSettingsSetOption) \
    X(JxlEncoderInitBasicInfo) \
    X(JxlEncoderProcessOutput) \
    X(JxlEncoderSetBasicInfo) \
    X(JxlEncoderSetColorEncoding) \
    X(JxlEncoderSetFrameDistance) \
    X(JxlEncoderSetICCProfile) \
    X(JxlEncoderUseBoxes) \
    X(JxlEncoderUseContainer)

#define TC_JXL_THREADS_FUNCTIONS(X) \
    X(JxlThreadParallelRunner) \
    X(JxlThreadParallelRunnerCreate) \
    X(JxlThreadParallelRunnerDestroy)

#define TC_FUNCTION_POINTER(name) __typeof__(name) *name;
extern struct tc_jxl_functions { TC_JXL_FUNCTIONS(TC_FUNCTION_POINTER) TC_JXL_THREADS_FUNCTIONS(TC_FUNCTION_POINTER) } tc_jxl;
#undef TC_FUNCTION_POINTER

#endif
