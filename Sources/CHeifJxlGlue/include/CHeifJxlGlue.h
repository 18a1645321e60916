// C glue for HEIC/HEIF (libheif: HEVC read through libde265, written through x265) and JPEG XL (libjxl). Same
// conventions as CWebpGifAvifGlue: decoders point into the caller's bytes, every call returns a tc_status and leaves
// a message in the decoder (or the tc_encoded) on failure, no global state but the tables of the libraries opened at
// first use (heif_library.h, jxl_library.h), never an abort on bad input.
#ifndef THUMBCACHE_HEIF_JXL_H
#define THUMBCACHE_HEIF_JXL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "CJpegPngGlue.h"

// MARK: HEIF

/// NULL once libheif (and libde265) are loaded; else why they could not be, with what to install. Loads them on the
/// first call (tc_library.h); every other tc_heif_ call needs them: a create returns NULL, an encode a status.
const char *tc_heif_library_error(void);

typedef struct tc_heif_decoder tc_heif_decoder;

typedef struct {
    int width, height;                  // the primary image as displayed: irot/imir/clap applied by libheif
    int has_alpha;
    int luma_bits;                      // 8, 10, 12 (-1 when the file does not say)
    int thumbnail_width, thumbnail_height;  // the largest usable embedded thumbnail, 0 x 0 when none
} tc_heif_header;

/// Wraps `data` (not copied; it must outlive the decoder). `max_side` becomes libheif's maximum image size
/// limit (per side). Returns NULL when out of memory (or if libde265's pictures could not be made to start zeroed).
tc_heif_decoder *tc_heif_decoder_create(const uint8_t *data, size_t size, int max_side);
/// Reads `file` (open, positioned anywhere; it must stay open while the decoder lives) through libheif's reader:
/// the boxes, then only the data of the items used (the primary image or the thumbnail, the metadata), never the
/// whole file. Its size is taken now (fstat): a file cut shorter gives the error its bytes would. NULL when out of
/// memory or the file cannot be stat'ed.
tc_heif_decoder *tc_heif_decoder_create_file(FILE *file, int max_side);
/// Makes every libde265 picture start zeroed, so a damaged HEIC cannot show earlier heap memory
/// (de265_zeroed_pictures.c). Called by tc_heif_decoder_create; safe from any thread. Returns 1 once in place.
int tc_heif_zero_hevc_pictures(void);
void tc_heif_decoder_destroy(tc_heif_decoder *decoder);
const char *tc_heif_message(const tc_heif_decoder *decoder);
/// Parses the boxes and the primary image's properties; no pixel memory. A thumbnail is offered only when it has
/// the primary's aspect ratio (within 2%) and alpha.
tc_status tc_heif_read_header(tc_heif_decoder *decoder, tc_heif_header *header);
/// The ICC profile (a 'prof'/'rICC' colr box, or one made with LittleCMS for an nclx box whose primaries are not
/// sRGB's), the Exif TIFF block (its offset skipped) and the XMP packet, owned by the decoder, or NULL.
const uint8_t *tc_heif_icc(const tc_heif_decoder *decoder, size_t *length);
const uint8_t *tc_heif_exif(const tc_heif_decoder *decoder, size_t *length);
const uint8_t *tc_heif_xmp(const tc_heif_decoder *decoder, size_t *length);
/// Decodes the primary image (or, with `use_thumbnail`, the thumbnail the header offered) to 8-bit interleaved
/// RGB (channels 3) or RGBA (4), transforms applied. The pixels stay owned by the decoder until it is destroyed.
tc_status tc_heif_decode(tc_heif_decoder *decoder, int use_thumbnail, int channels, int *width, int *height,
                         const uint8_t **pixels, size_t *stride);

/// The longest side HEIC is written at: imgproxy's (and HEIF's usual) 16384; larger is refused, not rescaled.
enum { TC_HEIF_MAX_SIDE = 16384 };

/// Whether this libheif has an HEVC encoder (x265, built in to Debian's libheif 1.15; a plugin in later ones).
int tc_heif_can_encode(void);
/// Lossy HEIC as libvips' heifsave writes it for imgproxy: HEVC through x265 (its "slow" preset, tuned for SSIM),
/// 8-bit, `quality` 1-100 as libheif maps it (crf (100 - q) / 2), chroma 4:2:0 below quality 90 and 4:4:4 from it.
/// Channels 3 (RGB) or 4 (RGBA: alpha as an auxiliary image); x265 on one thread, no pool. `metadata` (may be NULL)
/// becomes a colr 'prof' box (else libheif's nclx: sRGB, BT.601 matrix, full range), an Exif item and an XMP item.
tc_status tc_heif_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels, int quality,
                         const tc_metadata *metadata, tc_encoded *out);

// MARK: JPEG XL

/// NULL once libjxl and libjxl_threads are loaded; else why not, as `tc_heif_library_error`.
const char *tc_jxl_library_error(void);

typedef struct tc_jxl_decoder tc_jxl_decoder;

typedef struct {
    int width, height;                  // as displayed: libjxl applies the codestream's orientation
    int bits_per_sample;
    int has_alpha;
    int is_grey;
    int have_animation;
    int uses_original_profile;          // 0: XYB (lossy), decoded straight to sRGB
    int orientation;                    // the codestream's (1-8), already applied to the pixels
} tc_jxl_header;

tc_jxl_decoder *tc_jxl_decoder_create(const uint8_t *data, size_t size);
void tc_jxl_decoder_destroy(tc_jxl_decoder *decoder);
const char *tc_jxl_message(const tc_jxl_decoder *decoder);
/// Reads the basic info, the colour encoding and the Exif and XMP boxes; no pixel memory.
tc_status tc_jxl_read_header(tc_jxl_decoder *decoder, tc_jxl_header *header);
/// The ICC profile of the decoded pixels when they are not sRGB (an original-profile image in another space),
/// the Exif TIFF block and the XMP packet (owned by the decoder), or NULL.
const uint8_t *tc_jxl_icc(const tc_jxl_decoder *decoder, size_t *length);
const uint8_t *tc_jxl_exif(const tc_jxl_decoder *decoder, size_t *length);
const uint8_t *tc_jxl_xmp(const tc_jxl_decoder *decoder, size_t *length);
/// Decodes the first frame to 8-bit RGB (3) or RGBA (4) rows `stride` bytes apart (grey and 16-bit inputs
/// converted, orientation applied, XYB images rendered as sRGB). `threads` above 1: libjxl's groups are decoded by
/// that many worker threads (libjxl_threads' runner, made and stopped within the call); the pixels are the same.
tc_status tc_jxl_decode(tc_jxl_decoder *decoder, int channels, int threads, uint8_t *out, size_t stride);

/// Lossy JPEG XL at `distance` (butteraugli; the caller maps quality), `effort` 1-9, one thread. Channels 1-4
/// (grey, grey+alpha, RGB, RGBA). `metadata` (may be NULL) becomes the ICC profile (else sRGB is declared) and
/// the Exif and "xml " boxes of a container.
tc_status tc_jxl_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels,
                        float distance, int effort, const tc_metadata *metadata, tc_encoded *out);

#endif
