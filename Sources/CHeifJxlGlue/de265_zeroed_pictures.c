// libde265 pictures that start zeroed.
//
// Why: libde265 leaves the blocks of a damaged picture that it cannot decode as whatever its picture buffer held,
// and it takes those buffers from malloc. The fuzzer showed a damaged HEIC giving different thumbnails in one
// process: heap memory (possibly an earlier request's pixels) showing through, and even decoding or refusing
// depending on it. Zeroed buffers make the result a function of the file alone.
//
// How: every libde265 picture (decoded ones, SAO's working copies, stand-ins for missing references) is allocated
// through the functions `de265_get_default_image_allocation_functions()` points at, copied into each picture when it
// is made. That struct is writable data in libde265 (not const, outside RELRO: checked for 1.0.11), so replacing its
// two functions once, before the first decode, covers every allocation. A per-decoder allocator (a libheif decoder
// plugin with `de265_set_image_allocation_functions`) was tried first: it misses the pictures libde265 allocates
// with the defaults whenever SAO is on, which is most photos.
#include "CHeifJxlGlue.h"

#include "heif_library.h"
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/// libde265's SIMD code may read a little past a plane's end; its own allocator adds 16 bytes. We add more.
enum { tc_de265_padding = 64 };

static int zeroed_get_buffer(de265_decoder_context *context, struct de265_image_spec *spec, struct de265_image *image,
                             void *userdata) {
    (void)context;
    (void)userdata;
    if (spec->width <= 0 || spec->height <= 0) return 0;
    enum de265_chroma chroma = tc_de265.de265_get_chroma_format(image);
    int planes = chroma == de265_chroma_mono ? 1 : 3;
    size_t sub_x = chroma == de265_chroma_420 || chroma == de265_chroma_422 ? 2 : 1;
    size_t sub_y = chroma == de265_chroma_420 ? 2 : 1;
    size_t alignment = spec->alignment > 0 ? (size_t)spec->alignment : 16;
    void *memory[3] = {NULL, NULL, NULL};   // what calloc gave: released with free
    uint8_t *aligned[3] = {NULL, NULL, NULL}; // the plane, 64-byte aligned inside it
    int strides[3] = {0, 0, 0};
    for (int plane = 0; plane < planes; plane++) {
        size_t width = plane == 0 ? (size_t)spec->width : ((size_t)spec->width + sub_x - 1) / sub_x;
        size_t height = plane == 0 ? (size_t)spec->height : ((size_t)spec->height + sub_y - 1) / sub_y;
        size_t stride = (width + alignment - 1) / alignment * alignment
                        * (size_t)((tc_de265.de265_get_bits_per_pixel(image, plane) + 7) / 8);
        // calloc rather than posix_memalign + memset: the kernel's zero pages are only made resident where the
        // decoder writes (a picture's padding, or one that is never wholly decoded, costs nothing), and glibc skips
        // clearing memory that is fresh from the system. The 64-byte alignment is taken inside the block.
        if (stride > INT32_MAX || stride > (SIZE_MAX - tc_de265_padding - 64) / height
            || !(memory[plane] = calloc(1, stride * height + tc_de265_padding + 64))) {
            for (int made = 0; made < plane; made++) free(memory[made]);
            return 0;
        }
        aligned[plane] = (uint8_t *)(((uintptr_t)memory[plane] + 63) & ~(uintptr_t)63);
        strides[plane] = (int)stride;  // de265_set_image_plane takes bytes
    }
    // Each plane's calloc'd block is its user data, for release (the plane pointer libde265 hands out later is moved
    // by the conformance window).
    for (int plane = 0; plane < 3; plane++) tc_de265.de265_set_image_plane(image, plane, aligned[plane], strides[plane], memory[plane]);
    return 1;
}

static void zeroed_release_buffer(de265_decoder_context *context, struct de265_image *image, void *userdata) {
    (void)context;
    (void)userdata;
    for (int plane = 0; plane < 3; plane++) free(tc_de265.de265_get_image_plane_user_data(image, plane));
}

static pthread_once_t tc_de265_once = PTHREAD_ONCE_INIT;

static void tc_de265_install(void) {
    // Not const in libde265 (see the top of this file); a decoder made before this keeps the old functions, and
    // none is: this runs before libheif makes the first one.
    struct de265_image_allocation *defaults = (struct de265_image_allocation *)tc_de265.de265_get_default_image_allocation_functions();
    defaults->get_buffer = zeroed_get_buffer;
    defaults->release_buffer = zeroed_release_buffer;
}

int tc_heif_zero_hevc_pictures(void) {
    pthread_once(&tc_de265_once, tc_de265_install);
    return tc_de265.de265_get_default_image_allocation_functions()->get_buffer == zeroed_get_buffer;
}
