// C glue around libjpeg and libpng: every library call that can longjmp on error is made
// here, inside a setjmp frame, so that no Swift frame is ever skipped by longjmp.
// Each decoder/encoder call owns its own error context; there is no global state.
#ifndef THUMBCACHE_IMAGE_SUPPORT_H
#define THUMBCACHE_IMAGE_SUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "tc_malloc.h"

/// Result of a glue call. Anything but TC_OK leaves a human-readable message in the context.
typedef enum {
    TC_OK = 0,
    TC_CORRUPT = 1,
    TC_TRUNCATED = 2,
    TC_UNSUPPORTED = 3,
    TC_NO_MEMORY = 4,
    /// The decoder needs more memory than the limit it was given (libjpeg's whole-image buffers).
    TC_OVER_BUDGET = 5,
} tc_status;

enum { TC_MESSAGE_CAPACITY = 256 };

// MARK: JPEG decoding

typedef struct tc_jpeg_decoder tc_jpeg_decoder;

/// Header facts copied out of jpeg_decompress_struct so Swift never touches libjpeg structs.
typedef struct {
    int width, height;
    int components;        // 1, 3 or 4 as stored
    int color_space;       // J_COLOR_SPACE of the file
    int progressive;
    int saw_adobe_marker;  // Adobe CMYK files store inverted ink values
} tc_jpeg_header;

/// Wraps `data` (not copied; it must outlive the decoder). Returns NULL only when out of memory.
tc_jpeg_decoder *tc_jpeg_decoder_create(const uint8_t *data, size_t size);
/// Reads from `file` as decoding proceeds (not closed; it must outlive the decoder), so the encoded
/// image never has to be in memory whole. Returns NULL only when out of memory.
tc_jpeg_decoder *tc_jpeg_decoder_create_file(FILE *file);
void tc_jpeg_decoder_destroy(tc_jpeg_decoder *decoder);
const char *tc_jpeg_message(const tc_jpeg_decoder *decoder);

/// Reads markers up to the first scan; allocates no pixel memory.
tc_status tc_jpeg_read_header(tc_jpeg_decoder *decoder, tc_jpeg_header *header);
/// How a progressive decode at 1/2, 1/4 or 1/8 stores its coefficients (see jpeg_block_arrays.h).
typedef enum {
    TC_COEFFICIENTS_WHOLE = 0,        // every block whole, as libjpeg's own manager does (tests compare with it)
    TC_COEFFICIENTS_COMPACT = 1,      // compact where copying is cheap: components decoded to 1x1 (the DC alone)
    TC_COEFFICIENTS_COMPACT_ALL = 2,  // every reduced component, 2x2 and 4x4 too (tests: the same pixels)
} tc_coefficient_storage;

/// Bytes of libjpeg's whole-image coefficient buffer at 1/scale_denom, which progressive and multi-scan files
/// need (every block of every component, whatever the scaling), 0 for single-scan files. A block takes 128
/// bytes, or stored compactly (`storage`, see tc_jpeg_start) only what its reduced IDCT reads; what libjpeg's
/// limit is checked against. Valid once the header is read.
uint64_t tc_jpeg_coefficient_bytes(const tc_jpeg_decoder *decoder, int scale_denom, tc_coefficient_storage storage);
/// The first APP1 "Exif\0\0" payload (TIFF data after the 6-byte prefix), or NULL.
const uint8_t *tc_jpeg_exif(const tc_jpeg_decoder *decoder, size_t *length);
/// The first APP1 XMP packet (after its "http://ns.adobe.com/xap/1.0/" namespace), or NULL.
const uint8_t *tc_jpeg_xmp(const tc_jpeg_decoder *decoder, size_t *length);
/// The embedded ICC profile (APP2 "ICC_PROFILE" chunks joined in sequence order), malloc'd into
/// `*profile` (release with tc_free), or 0 when there is none or the chunks are inconsistent.
int tc_jpeg_icc(const tc_jpeg_decoder *decoder, uint8_t **profile, size_t *length);
/// Starts decompression at 1/scale_denom size. `cmyk` asks for raw CMYK (for CMYK/YCCK files),
/// otherwise RGB is produced (grayscale is expanded). Reports the output geometry. libjpeg may use at most
/// `max_memory` bytes (its memory manager's limit; TC_OVER_BUDGET when a whole-image buffer would exceed it).
/// With `drop_unused_scans`, the AC scans of a progressive file that the output size cannot use are not
/// decoded at all (see jpeg_scan_filter.h); the pixels are the same. Stored compactly (`storage`), a block of a
/// progressive decode at 1/2, 1/4 or 1/8 keeps only the coefficients its IDCT reads, and which others are
/// nonzero (see jpeg_block_arrays.h); the pixels are the same.
tc_status tc_jpeg_start(tc_jpeg_decoder *decoder, int scale_denom, int cmyk, int drop_unused_scans,
                        tc_coefficient_storage storage, size_t max_memory, int *out_width, int *out_height, int *out_components);
/// Bytes of the file that tc_jpeg_start's filter left out (0 when it did not filter).
uint64_t tc_jpeg_dropped_bytes(const tc_jpeg_decoder *decoder);
/// Decodes up to `max_rows` rows into `buffer` (rows `stride` bytes apart).
tc_status tc_jpeg_read_rows(tc_jpeg_decoder *decoder, uint8_t *buffer, size_t stride,
                            int max_rows, int *rows_read);
/// Consumes the rest of the stream so trailing corruption is noticed too.
tc_status tc_jpeg_finish(tc_jpeg_decoder *decoder);

// MARK: PNG decoding

typedef struct tc_png_decoder tc_png_decoder;

typedef struct {
    int width, height;
    int bit_depth, color_type, interlaced;
    int has_alpha;   // alpha channel or tRNS chunk
} tc_png_header;

tc_png_decoder *tc_png_decoder_create(const uint8_t *data, size_t size);
/// Reads from `file` as decoding proceeds (not closed; it must outlive the decoder).
tc_png_decoder *tc_png_decoder_create_file(FILE *file);
void tc_png_decoder_destroy(tc_png_decoder *decoder);
const char *tc_png_message(const tc_png_decoder *decoder);
tc_status tc_png_read_header(tc_png_decoder *decoder, tc_png_header *header);
/// The eXIf chunk payload if it precedes the image data, or NULL.
const uint8_t *tc_png_exif(tc_png_decoder *decoder, size_t *length);
/// The iCCP profile (decompressed, owned by the decoder), or NULL. NULL too when an sRGB chunk
/// says the pixels are sRGB already.
const uint8_t *tc_png_icc(tc_png_decoder *decoder, size_t *length);
/// Sets up expansion to 8-bit RGB or RGBA; reports channels (3 or 4) and Adam7 pass count.
tc_status tc_png_start(tc_png_decoder *decoder, int *channels, int *passes);
/// Reads the next row of the current pass into `row`. For interlaced images the caller
/// must pass the same, full-image row buffer on each pass (libpng merges passes into it).
tc_status tc_png_read_row(tc_png_decoder *decoder, uint8_t *row);
/// Reads the chunks after the image data, so a missing IEND or bad CRC is reported.
tc_status tc_png_finish(tc_png_decoder *decoder);

// MARK: Colour management (LittleCMS)

typedef enum { TC_ICC_SPACE_OTHER = 0, TC_ICC_SPACE_RGB, TC_ICC_SPACE_CMYK, TC_ICC_SPACE_GRAY } tc_icc_space;

typedef struct {
    tc_icc_space color_space;
    char description[TC_MESSAGE_CAPACITY];
    /// For an RGB matrix-shaper profile (colourants and curves, no lookup table), a bound on how far its
    /// relative-colorimetric conversion to sRGB could move an 8-bit value, in levels, before rounding: worked out
    /// from the colourants and the curves against sRGB's. HUGE_VAL for any other profile.
    double srgb_deviation;
} tc_icc_info;

/// Reads a profile's colour space, description and distance from sRGB; 0 if LittleCMS cannot parse it.
int tc_icc_inspect(const uint8_t *profile, size_t size, tc_icc_info *info);

typedef enum {
    TC_PIXELS_RGB = 0,
    TC_PIXELS_RGBA = 1,            // alpha is copied unchanged
    TC_PIXELS_CMYK = 2,
    TC_PIXELS_CMYK_INVERTED = 3,   // Adobe JPEGs: 255 means no ink
} tc_pixel_layout;

typedef struct tc_icc_transform tc_icc_transform;

/// A transform from `profile` to sRGB for pixels laid out as `input`. The output is RGB (RGBA for
/// RGBA input). NULL with a reason in `message` (TC_MESSAGE_CAPACITY bytes) when the profile is
/// unreadable or does not describe such pixels.
tc_icc_transform *tc_icc_create(const uint8_t *profile, size_t size, tc_pixel_layout input, char *message);
/// Converts `pixel_count` pixels; `in` and `out` may be the same buffer when the layouts match.
void tc_icc_apply(tc_icc_transform *transform, const uint8_t *in, uint8_t *out, size_t pixel_count);
void tc_icc_destroy(tc_icc_transform *transform);

// MARK: Encoding

/// Output of an encoder, allocated with malloc; release with tc_free.
typedef struct {
    uint8_t *data;
    size_t size;
    char message[TC_MESSAGE_CAPACITY];
} tc_encoded;

/// Metadata an encoder writes beside the pixels; any part may be NULL (size 0). Not copied: it must outlive the call.
typedef struct {
    const uint8_t *exif;  // a TIFF block ("II*\0" or "MM\0*"), without the "Exif\0\0" prefix
    size_t exif_size;
    const uint8_t *xmp;   // an XMP packet
    size_t xmp_size;
    const uint8_t *icc;   // an ICC profile describing the pixels (its colour space matching the channels)
    size_t icc_size;
} tc_metadata;

/// Encodes 8-bit grey (channels 1) or RGB (channels 3) rows as a baseline JPEG (4:2:0 for RGB) with optimized
/// Huffman tables; `metadata` (may be NULL) becomes APP1 Exif, APP1 XMP and APP2 ICC markers.
tc_status tc_jpeg_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels,
                         int quality, const tc_metadata *metadata, tc_encoded *out);
/// Encodes 8-bit grey (1), grey+alpha (2), RGB (3) or RGBA (4) rows as a non-interlaced PNG; `metadata` (may be
/// NULL) becomes eXIf, iTXt XML:com.adobe.xmp and iCCP chunks.
tc_status tc_png_encode(const uint8_t *pixels, int width, int height, size_t stride,
                        int channels, const tc_metadata *metadata, tc_encoded *out);
void tc_free(void *pointer);

#endif
