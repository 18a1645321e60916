// zlib for tests that craft PNGs in memory (chunk bombs, interlaced images) instead of shipping big fixtures.
#ifndef THUMBCACHE_ZLIB_TEST_SUPPORT_H
#define THUMBCACHE_ZLIB_TEST_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

/// The zlib stream of `length` bytes of `data` followed by `repeats` copies of the byte `fill` (streamed: the
/// repeats are never in memory), malloc'd into `*out` (release with free). Returns 0 on failure.
int tczt_deflate(const uint8_t *data, size_t length, uint8_t fill, uint64_t repeats, uint8_t **out, size_t *out_length);
/// CRC-32 as PNG chunks use it, continuing from `crc` (0 to start).
uint32_t tczt_crc32(uint32_t crc, const uint8_t *data, size_t length);

#endif
