#include "CHeifJxlGlue.h"
#include "jxl_library.h"
#include "tc_library.h"

#include <jxl/version.h>
#include <pthread.h>

struct tc_jxl_functions tc_jxl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *error = "libjxl was not loaded";
static char message[TC_MESSAGE_CAPACITY];

// libjxl 0.x carries its minor version in its soname: the one whose headers this was compiled with.
#define TC_TEXT(value) #value
#define TC_SONAME(base, major, minor) base "." TC_TEXT(major) "." TC_TEXT(minor)
#define TC_JXL_SONAME TC_SONAME("libjxl.so", JPEGXL_MAJOR_VERSION, JPEGXL_MINOR_VERSION)
#define TC_JXL_THREADS_SONAME TC_SONAME("libjxl_threads.so", JPEGXL_MAJOR_VERSION, JPEGXL_MINOR_VERSION)

static void load(void) {
    void *jxl = tc_library_open(TC_JXL_SONAME, "libjxl0.7", message, sizeof message);
    void *threads = jxl ? tc_library_open(TC_JXL_THREADS_SONAME, "libjxl0.7", message, sizeof message) : NULL;
    if (!threads) return;
#define TC_RESOLVE(library, soname, name) \
    if (!(tc_jxl.name = (__typeof__(name) *)tc_library_symbol(library, soname, #name, message, sizeof message))) return;
#define TC_RESOLVE_JXL(name) TC_RESOLVE(jxl, TC_JXL_SONAME, name)
#define TC_RESOLVE_THREADS(name) TC_RESOLVE(threads, TC_JXL_THREADS_SONAME, name)
    TC_JXL_FUNCTIONS(TC_RESOLVE_JXL)
    TC_JXL_THREADS_FUNCTIONS(TC_RESOLVE_THREADS)
    error = NULL;
}

const char *tc_jxl_library_error(void) {
    pthread_once(&once, load);
    return error ? message : NULL;
}
