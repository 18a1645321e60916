#include "CWebpGifAvifGlue.h"
#include "avif_library.h"
#include "tc_library.h"

#include <pthread.h>

// libavif's soname is not its version: the one that goes with the headers this is compiled against.
#if AVIF_VERSION_MAJOR == 0 && AVIF_VERSION_MINOR == 11
#define TC_AVIF_SONAME "libavif.so.15"
#else
#error "name the soname of this libavif (objdump -p libavif.so | grep SONAME)"
#endif

struct tc_avif_functions tc_avif;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *error = "libavif was not loaded";
static char message[TC_MESSAGE_CAPACITY];

static void load(void) {
    void *avif = tc_library_open(TC_AVIF_SONAME, "libavif15", message, sizeof message);
    if (!avif) return;
#define TC_RESOLVE(name) \
    if (!(tc_avif.name = (__typeof__(name) *)tc_library_symbol(avif, TC_AVIF_SONAME, #name, message, sizeof message))) return;
    TC_AVIF_FUNCTIONS(TC_RESOLVE)
    error = NULL;
}

const char *tc_avif_library_error(void) {
    pthread_once(&once, load);
    return error ? message : NULL;
}
