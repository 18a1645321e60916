// Codec libraries opened at first use rather than at start-up.
//
// Why: libheif (with libde265 and x265), libjxl (with highway), libavif (with two dozen AV1 libraries) and libtiff
// are large, and some run work when loaded (highway times its clock, libde265 builds tables). Linked, every process
// paid for them whatever it read: libheif and libjxl alone were 7.7 ms of CPU of a 23 ms start-up and 2.1-2.5 MiB
// of peak memory (docs/benchmarks.md, "Codec libraries opened at first use").
// libvips loads the same libraries as modules for the same reason. A glue target lists the functions it calls in an
// X-macro, keeps them in a table of pointers of the functions' own types, and fills it once through these two calls.
#ifndef THUMBCACHE_TC_LIBRARY_H
#define THUMBCACHE_TC_LIBRARY_H

#include <stddef.h>

/// Opens `soname` (RTLD_NOW | RTLD_LOCAL; one already loaded is shared), or returns NULL with the loader's reason
/// and what to install in `message`.
void *tc_library_open(const char *soname, const char *package, char *message, size_t size);

/// The address of `name` in `library` or the libraries it brought in, or NULL with the reason in `message`.
void *tc_library_symbol(void *library, const char *soname, const char *name, char *message, size_t size);

#endif
