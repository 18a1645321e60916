// C glue for TIFF (libtiff 4.5): read from memory through TIFFClientOpenExt, libtiff's errors and warnings routed
// into the decoder's message (never stderr), one allocation capped by the caller's budget. Same conventions as
// CJpegPngGlue: decoders point into the caller's bytes, every call returns a tc_status and leaves a message.
#ifndef THUMBCACHE_TIFF_GLUE_H
#define THUMBCACHE_TIFF_GLUE_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include "CJpegPngGlue.h"

/// NULL once libtiff is loaded; else why it could not be, with what to install. Loads it on the first call
/// (tc_library.h); every other tc_tiff_ call needs it: a create returns NULL, an encode a status.
const char *tc_tiff_library_error(void);

typedef struct tc_tiff_decoder tc_tiff_decoder;

enum { TC_TIFF_MAX_LEVELS = 16 };

typedef struct {
    int width, height;            // the first page, as stored
    int page_count;               // directories that are not reduced-resolution subfiles (at most 1024 are walked)
    int orientation;              // the Orientation tag, 1-8 (1 when absent)
    int has_alpha, is_grey, is_cmyk;
    int bits_per_sample, samples_per_pixel, photometric, compression, planar, tiled;
    int band_rows;                // rows per strip, or tile height: what one read decodes
    int level_count;              // reduced-resolution subfiles of the page (NewSubfileType 1), largest first
    int level_width[TC_TIFF_MAX_LEVELS], level_height[TC_TIFF_MAX_LEVELS], level_band_rows[TC_TIFF_MAX_LEVELS];
} tc_tiff_header;

/// Wraps `data` (not copied; it must outlive the decoder). No single libtiff allocation may exceed
/// `max_single_alloc` bytes (0: libtiff's default). Returns NULL only when out of memory.
tc_tiff_decoder *tc_tiff_decoder_create(const uint8_t *data, size_t size, uint64_t max_single_alloc);
/// Reads `file` (not closed; it must outlive the decoder) as libtiff asks, with pread on its descriptor: the
/// directories, then one strip or tile at a time into libtiff's buffer, so the file is never in memory whole.
/// Returns NULL when out of memory or the file cannot be stat'ed.
tc_tiff_decoder *tc_tiff_decoder_create_file(FILE *file, uint64_t max_single_alloc);
void tc_tiff_decoder_destroy(tc_tiff_decoder *decoder);
const char *tc_tiff_message(const tc_tiff_decoder *decoder);
/// Opens the file, walks its directories (counting pages, finding the first page's reduced levels) and reads the
/// first page's tags. No pixel memory.
tc_status tc_tiff_read_header(tc_tiff_decoder *decoder, tc_tiff_header *header);
/// The first page's ICC profile, XMP packet, Copyright and Artist (owned by the decoder), or NULL.
const uint8_t *tc_tiff_icc(const tc_tiff_decoder *decoder, size_t *length);
const uint8_t *tc_tiff_xmp(const tc_tiff_decoder *decoder, size_t *length);
const char *tc_tiff_copyright(const tc_tiff_decoder *decoder);
const char *tc_tiff_artist(const tc_tiff_decoder *decoder);
/// Starts decoding the page (`level` -1) or one of its reduced levels; reports the size delivered and the bytes a
/// pixel: 3 (RGB), or 4 for RGBA (alpha unassociated) and for CMYK files (the raw inks). 8-bit RGB(A) and CMYK
/// are delivered as stored, with no conversion.
tc_status tc_tiff_start(tc_tiff_decoder *decoder, int level, int *width, int *height, int *band_rows, int *channels);
/// Decodes the next band (at most `band_rows` rows, `width * channels` bytes each) into `out`; `*rows` says how many.
tc_status tc_tiff_read_band(tc_tiff_decoder *decoder, uint8_t *out, int *rows);

/// Encodes 8-bit grey (1), RGB (3) or RGBA (4, unassociated alpha) rows as a deflate-compressed striped TIFF with
/// the horizontal predictor. `metadata` (may be NULL): its ICC profile becomes the ICC tag, its XMP the XMLPacket
/// tag; `copyright`/`artist` (may be NULL) the Copyright and Artist tags.
tc_status tc_tiff_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels,
                         const tc_metadata *metadata, const char *copyright, const char *artist, tc_encoded *out);

#endif
