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

/// Animated WebP through libwebpdemux's WebPAnimDecoder, which composites each frame on the canvas (blending and
/// disposal as the format says); `data` must outlive it.
typedef struct tc_webp_animation tc_webp_animation;
/// Reads the container; allocates the decoder's two canvases (4 bytes a pixel each), so the caller checks its budget
/// first. NULL when the data does not parse (then `message` says why).
tc_webp_animation *tc_webp_animation_create(const uint8_t *data, size_t size, char message[TC_MESSAGE_CAPACITY]);
void tc_webp_animation_destroy(tc_webp_animation *animation);
void tc_webp_animation_info(const tc_webp_animation *animation, int *width, int *height, int *frames, int *loop_count);
/// The next composited canvas (RGBA, width x height, owned by the decoder until the next call) and its end time in
/// ms; `*found` 0 after the last frame.
tc_status tc_webp_animation_next(tc_webp_animation *animation, const uint8_t **canvas, int *timestamp_ms, int *found,
                                 char message[TC_MESSAGE_CAPACITY]);

/// Animated WebP through libwebpmux's WebPAnimEncoder: lossy at `quality` (method 4), frames added in order as they
/// are rendered.
typedef struct tc_webp_animation_encoder tc_webp_animation_encoder;
tc_webp_animation_encoder *tc_webp_animation_encoder_create(int width, int height, int quality);
void tc_webp_animation_encoder_destroy(tc_webp_animation_encoder *encoder);
/// Adds RGBA or RGB rows shown from `timestamp_ms` on.
tc_status tc_webp_animation_encoder_add(tc_webp_animation_encoder *encoder, const uint8_t *pixels, size_t stride,
                                        int channels, int timestamp_ms, tc_encoded *error);
/// Ends the last frame at `end_ms` and assembles the file, looping `loop_count` times (0: forever; -1, not stated:
/// once), a count known only once every frame was read.
tc_status tc_webp_animation_encoder_finish(tc_webp_animation_encoder *encoder, int end_ms, int loop_count,
                                           tc_encoded *out);

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
/// The current frame's palette (local, else global, else a grey ramp) as 256 RGB triplets; entries past
/// the table's size are black.
void tc_gif_palette(const tc_gif_decoder *decoder, uint8_t palette[768]);

/// One frame of an animation: where it sits on the screen (it may reach outside; the decode clips it), and its
/// Graphic Control Extension (disposal 0-7 as stored, delay in hundredths of a second).
typedef struct {
    int x, y, width, height;
    int interlaced;
    int transparent_index;              // -1: none
    int disposal;
    int delay_cs;
} tc_gif_frame;

/// The first frame, once `tc_gif_read_header` has read up to it.
tc_status tc_gif_first_frame(const tc_gif_decoder *decoder, tc_gif_frame *frame);
/// Skips what is left of the current frame's data and reads up to the next image descriptor: `*found` 0 at the
/// trailer or where the data ends between frames. Then `tc_gif_decode` and `tc_gif_palette` are that frame's.
tc_status tc_gif_next_frame(tc_gif_decoder *decoder, tc_gif_frame *frame, int *found);
/// Decodes the current frame (described by `frame`) and draws it on `canvas` (RGBA, the screen's size): its
/// transparent index leaves the canvas as it was. `indices` and `covered` are screen-sized scratch buffers.
tc_status tc_gif_composite(tc_gif_decoder *decoder, const tc_gif_frame *frame, uint8_t *canvas, uint8_t *indices,
                           uint8_t *covered);
/// Applies `frame`'s disposal after it was shown: 2 clears its rectangle to transparent, 3 copies `saved` (the
/// canvas as it was before the frame was drawn) back; 0, 1 and 4-7 leave the canvas.
void tc_gif_dispose(const tc_gif_decoder *decoder, const tc_gif_frame *frame, uint8_t *canvas, const uint8_t *saved);
/// The NETSCAPE2.0 loop count read so far (0: forever), -1 when the file has none (play once).
int tc_gif_loop_count(const tc_gif_decoder *decoder);
/// Counts the image descriptors by walking the block structure alone (no LZW, no allocation), stopping once the
/// count passes `limit`; `*complete` is 1 when the trailer was reached.
tc_status tc_gif_count_frames(const uint8_t *data, size_t size, int limit, int *frames, int *complete);

/// A GIF writer: frames of palette indices, each with its own palette (a local colour table) and delay.
typedef struct tc_gif_encoder tc_gif_encoder;
tc_gif_encoder *tc_gif_encoder_create(int width, int height);
void tc_gif_encoder_destroy(tc_gif_encoder *encoder);
/// One frame: `width` x `height` indices into `palette` (`colors` RGB triplets, 2-256) placed at (`x`, `y`) on the
/// canvas; `transparent_index` -1 for none; disposal 1 (keep) or 2 (clear its rectangle to transparent).
tc_status tc_gif_encoder_add(tc_gif_encoder *encoder, int x, int y, int width, int height, const uint8_t *indices,
                             const uint8_t *palette, int colors, int transparent_index, int delay_cs, int disposal,
                             tc_encoded *error);
/// The file; the encoder is spent. `loop_count` -1 writes no NETSCAPE2.0 extension (a still, or play once), 0 loops
/// forever: given at the end, as a source may state it after its first frame, and placed after the screen descriptor.
tc_status tc_gif_encoder_finish(tc_gif_encoder *encoder, int loop_count, tc_encoded *out);

/// Quantises RGBA rows to at most `max_colors` (2-256) palette entries by median cut on a 5-bit-per-channel
/// histogram refined by two k-means passes, then maps each pixel with Floyd-Steinberg error diffusion of `dither` percent of the error (0: none). Pixels with alpha below
/// 128 become `*transparent_index` (the last entry, reserved only when such pixels exist; else -1).
/// `indices` gets width x height bytes, `palette` 768 bytes; returns the number of entries used.
int tc_quantize_rgba(const uint8_t *pixels, int width, int height, size_t stride, int channels, int max_colors,
                     int dither, uint8_t *indices, uint8_t *palette, int *transparent_index);

// MARK: AVIF

/// NULL once libavif is loaded; else why it could not be, with what to install. Loads it on the first call
/// (tc_library.h); every other tc_avif_ call needs it: a create returns NULL, an encode a status.
const char *tc_avif_library_error(void);

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
/// Each further call of `tc_avif_decode` decodes the sequence's next frame; this is the duration of the one decoded
/// last, in seconds.
double tc_avif_frame_duration(const tc_avif_decoder *decoder);

/// AVIF through libaom at `speed`, `quality` 0-100 mapped as libavif 1.x maps it (cq-level), 4:2:0 (or 4:0:0
/// with `monochrome`, for neutral RGB(A) rows: only luma is coded), sRGB (nclx 1/13/6), alpha kept for channels 4.
/// `metadata` (may be NULL) becomes the Exif and XMP items and the colr 'prof' profile. One thread.
tc_status tc_avif_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels, int monochrome,
                         int quality, int speed, const tc_metadata *metadata, tc_encoded *out);

#endif
