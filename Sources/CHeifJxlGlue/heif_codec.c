#include "CHeifJxlGlue.h"
#include "heif_library.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lcms2.h>
#include <sys/stat.h>

struct tc_heif_decoder {
    const uint8_t *data;
    size_t size;
    // Reading a file (file_reader): libheif asks for the boxes, for each item's data once while it interprets them
    // (its metadata pass keeps only metadata), then for the data of the items it decodes. All on the calling thread.
    FILE *file;
    int64_t position;                   // libheif's position; file_offset is where stdio stands (-1: unknown)
    int64_t file_offset;
    int file_failed;                    // a read came up short or failed: the file changed or could not be read
    int file_errno;
    struct heif_context *context;
    struct heif_image_handle *primary;
    struct heif_image_handle *thumbnail;
    struct heif_image *image;
    uint8_t *icc, *exif, *xmp;
    size_t icc_size, exif_size, xmp_size;
    size_t exif_offset;                 // where the TIFF block starts inside `exif`
    char message[TC_MESSAGE_CAPACITY];
};

static tc_status fail(tc_heif_decoder *decoder, struct heif_error error) {
    char detail[TC_MESSAGE_CAPACITY];
    snprintf(detail, sizeof detail, "%s", error.message ? error.message : "libheif error");
    // libheif's messages can end with a newline.
    size_t length = strlen(detail);
    while (length > 0 && (detail[length - 1] == '\n' || detail[length - 1] == ' ')) detail[--length] = 0;
    snprintf(decoder->message, sizeof decoder->message, "%s", detail);
    // libheif reports its size limit (set from our pixel limit) as a memory error: say what it is.
    if (error.subcode == heif_suberror_Security_limit_exceeded) {
        snprintf(decoder->message, sizeof decoder->message, "over the size limit (libheif: %s)", detail);
        return TC_UNSUPPORTED;
    }
    if (error.code == heif_error_Memory_allocation_error) return TC_NO_MEMORY;
    if (error.subcode == heif_suberror_End_of_data) return TC_TRUNCATED;
    if (error.code == heif_error_Unsupported_feature || error.code == heif_error_Unsupported_filetype)
        return TC_UNSUPPORTED;
    return TC_CORRUPT;
}

// MARK: Reading a file

// libheif's reader over a file, with the semantics of its in-memory reader (bitstream.cc, StreamReader_memory) for
// the size fstat gave when the decoder was made: a seek past the end fails, a read past the end fails and reads
// nothing, so a cut file gives the same error from a file as from its bytes. Box parsing reads 1-8 bytes at a time:
// stdio's buffer takes those, and glibc reads an item's data (large) straight into libheif's buffer. libheif calls
// these on the decoding thread only: grid tiles are decoded on it (heif_context_set_max_decoding_threads 0).

static int64_t file_get_position(void *userdata) { return ((tc_heif_decoder *)userdata)->position; }

static int file_read(void *data, size_t size, void *userdata) {
    tc_heif_decoder *decoder = userdata;
    if (size > decoder->size - (size_t)decoder->position) return 1;
    if (size == 0) return 0;
    if (decoder->file_offset != decoder->position) {
        if (fseeko(decoder->file, (off_t)decoder->position, SEEK_SET) != 0) {
            decoder->file_failed = 1;
            decoder->file_errno = errno;
            decoder->file_offset = -1;
            return 1;
        }
    }
    size_t got = fread(data, 1, size, decoder->file);
    decoder->file_offset = decoder->position + (int64_t)got;
    if (got != size) {
        // Shorter than fstat said (the file was cut while we read it) or an I/O error. libheif ignores a failed read
        // of an item's data (its buffer stays zeroed), so the decoder checks file_failed after each call.
        decoder->file_failed = 1;
        decoder->file_errno = ferror(decoder->file) ? errno : 0;
        clearerr(decoder->file);
        return 1;
    }
    decoder->position += (int64_t)size;
    return 0;
}

static int file_seek(int64_t position, void *userdata) {
    tc_heif_decoder *decoder = userdata;
    if (position < 0 || (uint64_t)position > decoder->size) return 1;
    decoder->position = position;
    return 0;
}

static enum heif_reader_grow_status file_wait_for_size(int64_t target, void *userdata) {
    tc_heif_decoder *decoder = userdata;
    return target < 0 || (uint64_t)target > decoder->size ? heif_reader_grow_status_size_beyond_eof
                                                           : heif_reader_grow_status_size_reached;
}

static const struct heif_reader file_reader = {
    .reader_api_version = 1,
    .get_position = file_get_position,
    .read = file_read,
    .seek = file_seek,
    .wait_for_file_size = file_wait_for_size,
};

/// A read of the file came up short or failed during libheif's call, whatever libheif made of it (it may have
/// carried on with a zeroed buffer): the file shrank (truncated) or could not be read (corrupt, naming the error).
static tc_status file_fail(tc_heif_decoder *decoder) {
    if (decoder->file_errno) {
        snprintf(decoder->message, sizeof decoder->message, "the file could not be read (%s)", strerror(decoder->file_errno));
        return TC_CORRUPT;
    }
    snprintf(decoder->message, sizeof decoder->message, "the file became shorter while it was read");
    return TC_TRUNCATED;
}

// MARK: Decoding

void tc_heif_zeroed_begin(void);  // heif_zeroed_planes.cpp
void tc_heif_zeroed_end(void);

static tc_heif_decoder *decoder_alloc(int max_side) {
    if (tc_heif_library_error()) return NULL;
    // Without zeroed pictures a damaged file could show earlier heap memory: then decode nothing.
    if (!tc_heif_zero_hevc_pictures()) return NULL;
    tc_heif_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    decoder->context = tc_heif.heif_context_alloc();
    if (!decoder->context) {
        free(decoder);
        return NULL;
    }
    if (max_side > 0) tc_heif.heif_context_set_maximum_image_size_limit(decoder->context, max_side);
    // Grid tiles on the calling thread: the service runs one render per core already.
    tc_heif.heif_context_set_max_decoding_threads(decoder->context, 0);
    return decoder;
}

tc_heif_decoder *tc_heif_decoder_create(const uint8_t *data, size_t size, int max_side) {
    tc_heif_decoder *decoder = decoder_alloc(max_side);
    if (!decoder) return NULL;
    decoder->data = data;
    decoder->size = size;
    return decoder;
}

tc_heif_decoder *tc_heif_decoder_create_file(FILE *file, int max_side) {
    struct stat status;
    if (fstat(fileno(file), &status) != 0 || status.st_size < 0) return NULL;
    tc_heif_decoder *decoder = decoder_alloc(max_side);
    if (!decoder) return NULL;
    decoder->file = file;
    decoder->size = (size_t)status.st_size;
    decoder->file_offset = -1;
    return decoder;
}

void tc_heif_decoder_destroy(tc_heif_decoder *decoder) {
    if (!decoder) return;
    if (decoder->image) tc_heif.heif_image_release(decoder->image);
    if (decoder->thumbnail) tc_heif.heif_image_handle_release(decoder->thumbnail);
    if (decoder->primary) tc_heif.heif_image_handle_release(decoder->primary);
    tc_heif.heif_context_free(decoder->context);
    free(decoder->icc);
    free(decoder->exif);
    free(decoder->xmp);
    free(decoder);
}

const char *tc_heif_message(const tc_heif_decoder *decoder) { return decoder->message; }

/// An RGB ICC profile for nclx primaries with the sRGB curve (what iPhones and most encoders mean by them), made
/// with LittleCMS so the caller's one ICC path converts it. PQ/HLG transfer is not tone mapped here.
static void profile_from_nclx(tc_heif_decoder *decoder, const struct heif_color_profile_nclx *nclx) {
    // BT.709 (1) and unspecified (2) are sRGB's primaries: nothing to convert.
    if (nclx->color_primaries == heif_color_primaries_ITU_R_BT_709_5
        || nclx->color_primaries == heif_color_primaries_unspecified) return;
    cmsCIExyY white = {nclx->color_primary_white_x, nclx->color_primary_white_y, 1.0};
    cmsCIExyYTRIPLE primaries = {
        {nclx->color_primary_red_x, nclx->color_primary_red_y, 1.0},
        {nclx->color_primary_green_x, nclx->color_primary_green_y, 1.0},
        {nclx->color_primary_blue_x, nclx->color_primary_blue_y, 1.0},
    };
    if (white.x <= 0 || white.y <= 0) return;
    // The sRGB curve as an ICC parametric curve (type 4).
    cmsFloat64Number parameters[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
    cmsToneCurve *curve = cmsBuildParametricToneCurve(NULL, 4, parameters);
    if (!curve) return;
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsHPROFILE profile = cmsCreateRGBProfile(&white, &primaries, curves);
    cmsFreeToneCurve(curve);
    if (!profile) return;
    cmsUInt32Number length = 0;
    if (cmsSaveProfileToMem(profile, NULL, &length) && length > 0) {
        decoder->icc = malloc(length);
        if (decoder->icc && cmsSaveProfileToMem(profile, decoder->icc, &length)) {
            decoder->icc_size = length;
        } else {
            free(decoder->icc);
            decoder->icc = NULL;
        }
    }
    cmsCloseProfile(profile);
}

static void read_colour(tc_heif_decoder *decoder) {
    struct heif_image_handle *handle = decoder->primary;
    enum heif_color_profile_type type = tc_heif.heif_image_handle_get_color_profile_type(handle);
    if (type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC) {
        size_t size = tc_heif.heif_image_handle_get_raw_color_profile_size(handle);
        if (size == 0) return;
        decoder->icc = malloc(size);
        if (!decoder->icc) return;
        struct heif_error error = tc_heif.heif_image_handle_get_raw_color_profile(handle, decoder->icc);
        if (error.code == heif_error_Ok) {
            decoder->icc_size = size;
        } else {
            free(decoder->icc);
            decoder->icc = NULL;
        }
        return;
    }
    struct heif_color_profile_nclx *nclx = NULL;
    if (tc_heif.heif_image_handle_get_nclx_color_profile(handle, &nclx).code == heif_error_Ok && nclx) {
        profile_from_nclx(decoder, nclx);
        tc_heif.heif_nclx_color_profile_free(nclx);
    }
}

/// The first Exif block (its 4-byte offset to the TIFF header skipped) and the first XMP packet.
static void read_metadata(tc_heif_decoder *decoder) {
    struct heif_image_handle *handle = decoder->primary;
    int count = tc_heif.heif_image_handle_get_number_of_metadata_blocks(handle, NULL);
    if (count <= 0) return;
    if (count > 64) count = 64;
    heif_item_id ids[64];
    count = tc_heif.heif_image_handle_get_list_of_metadata_block_IDs(handle, NULL, ids, count);
    for (int i = 0; i < count; i++) {
        const char *type = tc_heif.heif_image_handle_get_metadata_type(handle, ids[i]);
        const char *content = tc_heif.heif_image_handle_get_metadata_content_type(handle, ids[i]);
        int is_exif = type && strcmp(type, "Exif") == 0;
        int is_xmp = type && strcmp(type, "mime") == 0 && content && strcmp(content, "application/rdf+xml") == 0;
        if ((is_exif && decoder->exif) || (is_xmp && decoder->xmp) || (!is_exif && !is_xmp)) continue;
        size_t size = tc_heif.heif_image_handle_get_metadata_size(handle, ids[i]);
        if (size == 0 || size > (64u << 20)) continue;
        uint8_t *bytes = malloc(size);
        if (!bytes) continue;
        if (tc_heif.heif_image_handle_get_metadata(handle, ids[i], bytes).code != heif_error_Ok) {
            free(bytes);
            continue;
        }
        if (is_xmp) {
            decoder->xmp = bytes;
            decoder->xmp_size = size;
            continue;
        }
        // ISO/IEC 23008-12 A.2.1: a big-endian offset from after these 4 bytes to the TIFF header.
        if (size < 4) {
            free(bytes);
            continue;
        }
        size_t offset = ((size_t)bytes[0] << 24) | ((size_t)bytes[1] << 16) | ((size_t)bytes[2] << 8) | bytes[3];
        if (offset > size - 4) {
            free(bytes);
            continue;
        }
        decoder->exif = bytes;
        decoder->exif_offset = 4 + offset;
        decoder->exif_size = size - decoder->exif_offset;
    }
}

/// The largest thumbnail with the primary's alpha and aspect ratio (libvips also refuses thumbnails that do not
/// match: some encoders wrote broken ones).
static void choose_thumbnail(tc_heif_decoder *decoder, int width, int height, int has_alpha) {
    int count = tc_heif.heif_image_handle_get_number_of_thumbnails(decoder->primary);
    if (count <= 0) return;
    if (count > 16) count = 16;
    heif_item_id ids[16];
    count = tc_heif.heif_image_handle_get_list_of_thumbnail_IDs(decoder->primary, ids, count);
    int best_width = 0;
    for (int i = 0; i < count; i++) {
        struct heif_image_handle *thumbnail = NULL;
        if (tc_heif.heif_image_handle_get_thumbnail(decoder->primary, ids[i], &thumbnail).code != heif_error_Ok) continue;
        int tw = tc_heif.heif_image_handle_get_width(thumbnail), th = tc_heif.heif_image_handle_get_height(thumbnail);
        int usable = tw > 0 && th > 0 && tw < width
            && (tc_heif.heif_image_handle_has_alpha_channel(thumbnail) != 0) == (has_alpha != 0)
            && fabs((double)tw / th - (double)width / height) <= 0.02 * (double)width / height;
        if (usable && tw > best_width) {
            if (decoder->thumbnail) tc_heif.heif_image_handle_release(decoder->thumbnail);
            decoder->thumbnail = thumbnail;
            best_width = tw;
        } else {
            tc_heif.heif_image_handle_release(thumbnail);
        }
    }
}

tc_status tc_heif_read_header(tc_heif_decoder *decoder, tc_heif_header *header) {
    memset(header, 0, sizeof *header);
    struct heif_error error = decoder->file
        ? tc_heif.heif_context_read_from_reader(decoder->context, &file_reader, decoder, NULL)
        : tc_heif.heif_context_read_from_memory_without_copy(decoder->context, decoder->data, decoder->size, NULL);
    if (decoder->file_failed) return file_fail(decoder);
    if (error.code != heif_error_Ok) return fail(decoder, error);
    error = tc_heif.heif_context_get_primary_image_handle(decoder->context, &decoder->primary);
    if (error.code != heif_error_Ok) return fail(decoder, error);
    header->width = tc_heif.heif_image_handle_get_width(decoder->primary);
    header->height = tc_heif.heif_image_handle_get_height(decoder->primary);
    header->has_alpha = tc_heif.heif_image_handle_has_alpha_channel(decoder->primary) != 0;
    header->luma_bits = tc_heif.heif_image_handle_get_luma_bits_per_pixel(decoder->primary);
    if (header->width <= 0 || header->height <= 0) return TC_OK;  // the caller refuses a zero size
    read_colour(decoder);
    read_metadata(decoder);
    choose_thumbnail(decoder, header->width, header->height, header->has_alpha);
    if (decoder->thumbnail) {
        header->thumbnail_width = tc_heif.heif_image_handle_get_width(decoder->thumbnail);
        header->thumbnail_height = tc_heif.heif_image_handle_get_height(decoder->thumbnail);
    }
    return decoder->file_failed ? file_fail(decoder) : TC_OK;  // metadata items are read from the file too
}

const uint8_t *tc_heif_icc(const tc_heif_decoder *decoder, size_t *length) {
    *length = decoder->icc_size;
    return decoder->icc_size ? decoder->icc : NULL;
}

const uint8_t *tc_heif_exif(const tc_heif_decoder *decoder, size_t *length) {
    *length = decoder->exif_size;
    return decoder->exif_size ? decoder->exif + decoder->exif_offset : NULL;
}

const uint8_t *tc_heif_xmp(const tc_heif_decoder *decoder, size_t *length) {
    *length = decoder->xmp_size;
    return decoder->xmp_size ? decoder->xmp : NULL;
}

tc_status tc_heif_decode(tc_heif_decoder *decoder, int use_thumbnail, int channels, int *width, int *height,
                         const uint8_t **pixels, size_t *stride) {
    struct heif_image_handle *handle = use_thumbnail && decoder->thumbnail ? decoder->thumbnail : decoder->primary;
    if (!handle || decoder->image) {
        snprintf(decoder->message, sizeof decoder->message, "header not read, or decoded already");
        return TC_CORRUPT;
    }
    struct heif_decoding_options *options = tc_heif.heif_decoding_options_alloc();
    if (!options) return TC_NO_MEMORY;
    // Transformations (irot, imir, clap) applied: the pixels come out upright, so no Exif orientation applies.
    options->ignore_transformations = 0;
    options->convert_hdr_to_8bit = 1;
    // libheif's planes start zeroed here (heif_zeroed_planes.cpp): a damaged file cannot show earlier heap memory.
    tc_heif_zeroed_begin();
    struct heif_error error = tc_heif.heif_decode_image(handle, &decoder->image, heif_colorspace_RGB,
                                                channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB,
                                                options);
    tc_heif_zeroed_end();
    tc_heif.heif_decoding_options_free(options);
    if (decoder->file_failed) return file_fail(decoder);  // the item's data was not all read: not a picture of it
    if (error.code != heif_error_Ok) {
        decoder->image = NULL;
        return fail(decoder, error);
    }
    int row_bytes = 0;
    const uint8_t *plane = tc_heif.heif_image_get_plane_readonly(decoder->image, heif_channel_interleaved, &row_bytes);
    int bits = tc_heif.heif_image_get_bits_per_pixel_range(decoder->image, heif_channel_interleaved);
    if (!plane || bits != 8) {
        snprintf(decoder->message, sizeof decoder->message, "libheif gave no 8-bit interleaved plane");
        return TC_UNSUPPORTED;
    }
    *width = tc_heif.heif_image_get_width(decoder->image, heif_channel_interleaved);
    *height = tc_heif.heif_image_get_height(decoder->image, heif_channel_interleaved);
    *pixels = plane;
    *stride = (size_t)row_bytes;
    return TC_OK;
}
