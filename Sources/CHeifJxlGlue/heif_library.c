#include "CHeifJxlGlue.h"
#include "heif_library.h"
#include "tc_library.h"

#include <pthread.h>

struct tc_heif_functions tc_heif;
struct tc_de265_functions tc_de265;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *error = "libheif was not loaded";
static char message[TC_MESSAGE_CAPACITY];

// libheif 1.x keeps soname 1; libde265 is libheif's own dependency, opened here for its allocation hook.
static void load(void) {
    void *heif = tc_library_open("libheif.so.1", "libheif1", message, sizeof message);
    void *de265 = heif ? tc_library_open("libde265.so.0", "libde265-0", message, sizeof message) : NULL;
    if (!de265) return;
#define TC_RESOLVE(library, soname, table, name) \
    if (!(table.name = (__typeof__(name) *)tc_library_symbol(library, soname, #name, message, sizeof message))) return;
#define TC_RESOLVE_HEIF(name) TC_RESOLVE(heif, "libheif.so.1", tc_heif, name)
#define TC_RESOLVE_DE265(name) TC_RESOLVE(de265, "libde265.so.0", tc_de265, name)
    TC_HEIF_FUNCTIONS(TC_RESOLVE_HEIF)
    TC_DE265_FUNCTIONS(TC_RESOLVE_DE265)
    error = NULL;
}

const char *tc_heif_library_error(void) {
    pthread_once(&once, load);
    return error ? message : NULL;
}
