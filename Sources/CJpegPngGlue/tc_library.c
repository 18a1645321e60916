#include "tc_library.h"

#include <dlfcn.h>
#include <stdio.h>

void *tc_library_open(const char *soname, const char *package, char *message, size_t size) {
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(message, size, "%s could not be loaded (%s); install %s (scripts/install-deps.sh)", soname,
                 reason ? reason : "unknown reason", package);
    }
    return library;
}

void *tc_library_symbol(void *library, const char *soname, const char *name, char *message, size_t size) {
    dlerror();
    void *address = dlsym(library, name);
    if (!address) {
        const char *reason = dlerror();
        snprintf(message, size, "%s has no %s (%s): a version older than the one thumbcache was built with", soname,
                 name, reason ? reason : "not found");
    }
    return address;
}
