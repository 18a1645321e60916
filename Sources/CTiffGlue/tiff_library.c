#include "CTiffGlue.h"
#include "tc_library.h"
#include "tiff_library.h"

#include <pthread.h>

// libtiff 4.5 and later are soname 6 (4.0 to 4.4 were 5, and lack TIFFOpenOptions, which the glue needs).
#if TIFFLIB_AT_LEAST(4, 5, 0)
#define TC_TIFF_SONAME "libtiff.so.6"
#else
#error "libtiff 4.5 or later is needed (TIFFOpenOptions)"
#endif

struct tc_tiff_functions tc_tiff;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *error = "libtiff was not loaded";
static char message[TC_MESSAGE_CAPACITY];

static void load(void) {
    void *tiff = tc_library_open(TC_TIFF_SONAME, "libtiff6", message, sizeof message);
    if (!tiff) return;
#define TC_RESOLVE(name) \
    if (!(tc_tiff.name = (__typeof__(name) *)tc_library_symbol(tiff, TC_TIFF_SONAME, #name, message, sizeof message))) return;
    TC_TIFF_FUNCTIONS(TC_RESOLVE)
    error = NULL;
}

const char *tc_tiff_library_error(void) {
    pthread_once(&once, load);
    return error ? message : NULL;
}
