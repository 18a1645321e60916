// C glue for WebP (libwebp + libwebpdemux), GIF (giflib, with our own LZW decoder) and AVIF (libavif).
// Same conventions as CJpegPngGlue: decoders point into the caller's bytes, every call returns a
// tc_status and leaves a message in the decoder on failure, no global state.
#ifndef THUMBCACHE_IMAGE_FORMATS_H
#define THUMBCACHE_IMAGE_FORMATS_H

#include <stddef.h>
#include <stdint.h>
#include "CJpegPngGlue.h"

// MARK: WebP

typedef struct tc_webp_decoder tc_webp_decoder;

typedef struct {
    int canvas_width, canvas_height;    // VP8X canvas, or the bitstream size of a simple file
    int has_alpha;                      // the first frame has alpha, or does not cover the canvas
    int frame_count;                    // 1 for stills
    int lossless;                       // the first frame is VP8L
    int frame_x, frame_y, frame_width, frame_height;  // the first frame on the canvas
} tc_webp_header;

/// Wraps `data` (not copied; it must outlive the decoder). Returns NULL only when out of memory.
tc_webp_decoder *tc_webp_decoder_create(const uint8_t *data, size_t size);
void tc_webp_decoder_destroy(tc_webp_decoder *decoder);
const char *tc_webp_message(const tc_webp_decoder *decoder);
/// Parses the RIFF container (all chunks: a file cut short is TC_TRUNCATED) and the first frame's header.
tc_status tc_webp_read_header(tc_webp_decoder *decoder, tc_webp_header *header);
/// The EXIF / ICCP chunk payloads (owned by the decoder), or NULL.
const uint8_t *tc_webp_exif(const tc_webp_decoder *decoder, size_t *length);
const uint8_t *tc_webp_icc(const tc_webp_decoder *decoder, size_t *length);
const uint8_t *tc_webp_xmp(const tc_webp_decoder *decoder, size_t *length);
/// Decodes the first frame into `out` (rows `stride` bytes apart, `channels` 3 or 4) at
/// `width` x `height`. A size other than the canvas uses libwebp's scaled decode; that is only
/// allowed when the first frame covers the whole canvas. Pixels outside the frame are transparent.
tc_status tc_webp_decode(tc_webp_decoder *decoder, int width, int height, int channels,
                         uint8_t *out, size_t stride);

/// Lossy WebP at `quality` (0-100), method 4, alpha kept for channels 4 (WebP has no grey layout: RGB(A) only).
/// `metadata` (may be NULL) becomes EXIF, XMP and ICCP chunks through libwebpmux (an extended VP8X file).
tc_status tc_webp_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels,
                         int quality, const tc_metadata *metadata, tc_encoded *out);

// MARK: GIF

typedef struct tc_gif_decoder tc_gif_decoder;

typedef struct {
    int screen_width, screen_height;    // the logical screen: the canvas the first frame is drawn on
    int frame_x, frame_y, frame_width, frame_height;
    int interlaced;
    int transparent_index;              // -1 when the first frame has no transparency
    int has_alpha;                      // transparency, or a frame that leaves part of the screen empty
    int lzw_min_code_size;
} tc_gif_header;

tc_gif_decoder *tc_gif_decoder_create(const uint8_t *data, size_t size);
void tc_gif_decoder_destroy(tc_gif_decoder *decoder);
const char *tc_gif_message(const tc_gif_decoder *decoder);
/// Reads the screen descriptor and the records up to the first image descriptor; no pixel memory.
tc_status tc_gif_read_header(tc_gif_decoder *decoder, tc_gif_header *header);
/// Decodes the first frame's LZW data into `indices` (screen_width x screen_height bytes, which the
/// caller sizes after checking its pixel budget), clipped to the screen. Invalid codes and data that
/// ends before the frame is complete are refused. `covered` (same size) gets 1 where the frame drew.
tc_status tc_gif_decode(tc_gif_decoder *decoder, uint8_t *indices, uint8_t *covered);
/// The first frame's palette (local, else global, else a grey ramp) as 256 RGB triplets; entries past
/// the table's size are black.
void tc_gif_palette(const tc_gif_decoder *decoder, uint8_t palette[768]);

// MARK: AVIF

typedef struct tc_avif_decoder tc_avif_decoder;

typedef struct {
    int width, height;                  // coded size of the primary item (the grid's size for grids)
    int depth;                          // 8, 10 or 12
    int yuv_format;                     // avifPixelFormat
    int has_alpha;
    int frame_count;
    int rotation;                       // irot: anticlockwise quarter turns, 0-3
    int mirror;                         // imir: -1 none, 0 top-bottom, 1 left-right
    int color_primaries, transfer, matrix;  // nclx (CICP)
} tc_avif_header;

/// `size_limit` and `dimension_limit` become libavif's imageSizeLimit and imageDimensionLimit
/// (0 keeps libavif's defaults).
tc_avif_decoder *tc_avif_decoder_create(const uint8_t *data, size_t size, uint32_t size_limit,
                                        uint32_t dimension_limit);
void tc_avif_decoder_destroy(tc_avif_decoder *decoder);
const char *tc_avif_message(const tc_avif_decoder *decoder);
/// avifDecoderParse with libavif's strict flags: reads the boxes only, allocates no pixel memory.
tc_status tc_avif_read_header(tc_avif_decoder *decoder, tc_avif_header *header);
/// The colr 'prof' ICC profile (owned by the decoder), or NULL.
const uint8_t *tc_avif_icc(const tc_avif_decoder *decoder, size_t *length);
/// The Exif payload (a TIFF block, libavif having skipped its offset) and XMP packet (owned by the decoder), or NULL.
const uint8_t *tc_avif_exif(const tc_avif_decoder *decoder, size_t *length);
const uint8_t *tc_avif_xmp(const tc_avif_decoder *decoder, size_t *length);
/// Decodes the first image (of a sequence, the first frame) to 8-bit RGB/RGBA. With `to_srgb` and
/// no ICC profile, nclx colour (wide gamut primaries, PQ/HLG transfer with a simple tone map) is
/// converted to sRGB; with an ICC profile the caller converts.
tc_status tc_avif_decode(tc_avif_decoder *decoder, int channels, int to_srgb, uint8_t *out, size_t stride);

/// AVIF through libaom at `speed`, `quality` 0-100 mapped as libavif 1.x maps it (cq-level), 4:2:0 (or 4:0:0
/// with `monochrome`, for neutral RGB(A) rows: only luma is coded), sRGB (nclx 1/13/6), alpha kept for channels 4.
/// `metadata` (may be NULL) becomes the Exif and XMP items and the colr 'prof' profile. One thread.
tc_status tc_avif_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels, int monochrome,
                         int quality, int speed, const tc_metadata *metadata, tc_encoded *out);

#endif
