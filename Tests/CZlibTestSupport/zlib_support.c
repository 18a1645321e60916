#include "CZlibTestSupport.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int tczt_deflate(const uint8_t *data, size_t length, uint8_t fill, uint64_t repeats, uint8_t **out, size_t *out_length) {
    uint8_t block[1 << 16];
    memset(block, fill, sizeof block);
    uint64_t left = repeats;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (deflateInit(&stream, 9) != Z_OK) return 0;
    size_t capacity = 1 << 16, used = 0;
    uint8_t *buffer = malloc(capacity);
    int flush = Z_NO_FLUSH, status = Z_OK;
    stream.next_in = (Bytef *)data;
    stream.avail_in = (uInt)length;
    while (buffer && status != Z_STREAM_END) {
        if (stream.avail_in == 0) {
            if (left > 0) {
                uInt take = left < sizeof block ? (uInt)left : (uInt)sizeof block;
                stream.next_in = (Bytef *)block;
                stream.avail_in = take;
                left -= take;
            }
            if (left == 0) flush = Z_FINISH;
        }
        if (capacity - used < (1 << 15)) {
            uint8_t *grown = realloc(buffer, capacity * 2);
            if (!grown) { free(buffer); buffer = NULL; break; }
            buffer = grown;
            capacity *= 2;
        }
        stream.next_out = buffer + used;
        stream.avail_out = (uInt)(capacity - used);
        status = deflate(&stream, flush);
        used = capacity - stream.avail_out;
        if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) { free(buffer); buffer = NULL; }
    }
    deflateEnd(&stream);
    if (!buffer) return 0;
    *out = buffer;
    *out_length = used;
    return 1;
}

uint32_t tczt_crc32(uint32_t crc, const uint8_t *data, size_t length) {
    return (uint32_t)crc32(crc, data, (uInt)length);
}
