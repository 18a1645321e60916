// glibc's allocator settings for a whole process (the executable chooses; see Sources/thumbcache/MallocPolicy.swift).
#ifndef THUMBCACHE_TC_MALLOC_H
#define THUMBCACHE_TC_MALLOC_H

#include <stddef.h>

/// Blocks of `bytes` and more are always mapped and unmapped (mallopt M_MMAP_THRESHOLD, which also turns off glibc's
/// raising of that threshold). Returns 1 when glibc took it.
int tc_malloc_fix_mmap_threshold(size_t bytes);

#endif
