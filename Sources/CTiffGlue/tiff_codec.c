#include "CTiffGlue.h"
#include "tiff_library.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

// MARK: Messages

/// Where libtiff's diagnostics go for one decoder or encoder: the first error is kept (the root cause; libtiff often
/// adds a generic one after it), warnings are dropped. Returning 1 stops libtiff from calling its global handler.
typedef struct {
    char message[TC_MESSAGE_CAPACITY];
} tc_tiff_messages;

static int on_error(TIFF *tif, void *user_data, const char *module, const char *format, va_list args) {
    (void)tif;
    tc_tiff_messages *messages = user_data;
    if (messages && !messages->message[0]) {
        char text[TC_MESSAGE_CAPACITY];
        vsnprintf(text, sizeof text, format, args);
        // Some of libtiff's messages name the stream ("memory: ") only when it cannot be mapped, as a file read in
        // pieces cannot: left out, so one input gives one message whether it came as bytes or as a file.
        const char *said = strncmp(text, "memory: ", 8) == 0 ? text + 8 : text;
        snprintf(messages->message, sizeof messages->message, "%s%s%s", module ? module : "", module ? ": " : "", said);
    }
    return 1;
}

static int on_warning(TIFF *tif, void *user_data, const char *module, const char *format, va_list args) {
    (void)tif; (void)user_data; (void)module; (void)format; (void)args;
    return 1;
}

/// libtiff's global handlers print to stderr; a few of its paths report through them rather than the per-file ones.
static void silence_global_handlers(void) {
    tc_tiff.TIFFSetErrorHandler(NULL);
    tc_tiff.TIFFSetWarningHandler(NULL);
}
static pthread_once_t silence_once = PTHREAD_ONCE_INIT;

static TIFFOpenOptions *open_options(tc_tiff_messages *messages, uint64_t max_single_alloc) {
    pthread_once(&silence_once, silence_global_handlers);
    TIFFOpenOptions *options = tc_tiff.TIFFOpenOptionsAlloc();
    if (!options) return NULL;
    if (max_single_alloc) tc_tiff.TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)max_single_alloc);
    tc_tiff.TIFFOpenOptionsSetErrorHandlerExtR(options, on_error, messages);
    tc_tiff.TIFFOpenOptionsSetWarningHandlerExtR(options, on_warning, messages);
    return options;
}

// MARK: Memory I/O

/// The bytes libtiff reads (decoding: the caller's, never written) or writes (encoding: grown with realloc).
typedef struct {
    uint8_t *data;
    size_t size, capacity, position;
    int failed;
    FILE *file;  // decoding a file: read with fread/fseeko as libtiff asks, never mapped (data is NULL)
} tc_tiff_stream;

static tmsize_t stream_read(thandle_t handle, void *buffer, tmsize_t size) {
    tc_tiff_stream *stream = handle;
    if (size <= 0 || stream->position >= stream->size) return 0;
    if (stream->file) {  // pread on its descriptor: no stdio buffer copy, and the FILE's own position is left alone
        size_t done = 0;
        while (done < (size_t)size) {
            ssize_t got = pread(fileno(stream->file), (uint8_t *)buffer + done, (size_t)size - done,
                                (off_t)(stream->position + done));
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) return -1;
            if (got == 0) break;
            done += (size_t)got;
        }
        stream->position += done;
        return (tmsize_t)done;
    }
    size_t count = stream->size - stream->position;
    if ((size_t)size < count) count = (size_t)size;
    memcpy(buffer, stream->data + stream->position, count);
    stream->position += count;
    return (tmsize_t)count;
}

static tmsize_t stream_no_write(thandle_t handle, void *buffer, tmsize_t size) {
    (void)handle; (void)buffer; (void)size;
    return 0;
}

static tmsize_t stream_write(thandle_t handle, void *buffer, tmsize_t size) {
    tc_tiff_stream *stream = handle;
    if (size < 0 || stream->failed) return -1;
    size_t end = stream->position + (size_t)size;
    if (end > stream->capacity) {
        size_t capacity = stream->capacity ? stream->capacity : 65536;
        while (capacity < end) capacity *= 2;
        uint8_t *grown = realloc(stream->data, capacity);
        if (!grown) {
            stream->failed = 1;
            return -1;
        }
        stream->data = grown;
        stream->capacity = capacity;
    }
    if (stream->position > stream->size) memset(stream->data + stream->size, 0, stream->position - stream->size);
    memcpy(stream->data + stream->position, buffer, (size_t)size);
    stream->position = end;
    if (end > stream->size) stream->size = end;
    return size;
}

static toff_t stream_seek(thandle_t handle, toff_t offset, int whence) {
    tc_tiff_stream *stream = handle;
    uint64_t base = whence == SEEK_CUR ? stream->position : whence == SEEK_END ? stream->size : 0;
    uint64_t target = base + offset;
    if (target > ((uint64_t)1 << 40)) return (toff_t)-1;
    stream->position = (size_t)target;
    return target;
}

static int stream_close(thandle_t handle) { (void)handle; return 0; }
static toff_t stream_size(thandle_t handle) { return ((tc_tiff_stream *)handle)->size; }

/// The whole file is in memory: libtiff reads uncompressed and compressed strips straight out of it.
static int stream_map(thandle_t handle, void **base, toff_t *size) {
    tc_tiff_stream *stream = handle;
    if (stream->file) return 0;  // libtiff then reads each strip or tile into its own buffer
    *base = stream->data;
    *size = stream->size;
    return 1;
}

static int stream_no_map(thandle_t handle, void **base, toff_t *size) {
    (void)handle; (void)base; (void)size;
    return 0;
}

static void stream_unmap(thandle_t handle, void *base, toff_t size) { (void)handle; (void)base; (void)size; }

// MARK: Decoding

enum { MAX_DIRECTORIES = 1024 };

struct tc_tiff_decoder {
    tc_tiff_stream stream;
    uint64_t max_single_alloc;
    TIFF *tif;
    tc_tiff_messages messages;
    tc_tiff_header header;
    // Where the page and its levels are: a main-chain directory number, or (-1) a SubIFD offset.
    int page_directory;
    int level_directory[TC_TIFF_MAX_LEVELS];
    uint64_t level_offset[TC_TIFF_MAX_LEVELS];
    uint8_t *icc, *xmp;
    uint32_t icc_size, xmp_size;
    char *copyright, *artist;
    // The directory being decoded.
    int width, height, band_rows, next_row;
    int raw;                 // read samples ourselves (8/16-bit contiguous grey, RGB, CMYK); else TIFFRGBAImage
    int bits, samples, colour_samples, alpha_sample, associated, photometric, tiled;
    int channels;            // bytes a delivered pixel: 4 with alpha or for CMYK inks, else 3
    int as_stored;           // the stored samples are the delivered pixels (8-bit RGB, RGBA unassociated, CMYK)
    uint32_t tile_width, tile_height;
    uint8_t *band;           // raw: one band of samples as stored; tiled: one tile too
    uint8_t *tile;
    uint32_t *raster;        // TIFFRGBAImage's packed band
    TIFFRGBAImage rgba;
    int rgba_started;
};

tc_tiff_decoder *tc_tiff_decoder_create(const uint8_t *data, size_t size, uint64_t max_single_alloc) {
    if (tc_tiff_library_error()) return NULL;
    tc_tiff_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    decoder->stream.data = (uint8_t *)data;  // never written: the map and read procs only read
    decoder->stream.size = size;
    decoder->max_single_alloc = max_single_alloc;
    return decoder;
}

tc_tiff_decoder *tc_tiff_decoder_create_file(FILE *file, uint64_t max_single_alloc) {
    if (tc_tiff_library_error()) return NULL;
    struct stat status;
    if (fstat(fileno(file), &status) != 0 || status.st_size < 0) return NULL;
    tc_tiff_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    decoder->stream.file = file;
    decoder->stream.size = (size_t)status.st_size;
    decoder->max_single_alloc = max_single_alloc;
    return decoder;
}

void tc_tiff_decoder_destroy(tc_tiff_decoder *decoder) {
    if (!decoder) return;
    if (decoder->rgba_started) tc_tiff.TIFFRGBAImageEnd(&decoder->rgba);
    if (decoder->tif) tc_tiff.TIFFClose(decoder->tif);
    free(decoder->icc);
    free(decoder->xmp);
    free(decoder->copyright);
    free(decoder->artist);
    free(decoder->band);
    free(decoder->tile);
    free(decoder->raster);
    free(decoder);
}

const char *tc_tiff_message(const tc_tiff_decoder *decoder) { return decoder->messages.message; }

/// Whether a strip or tile of the current directory lies past the end of the data. libtiff reports that case
/// differently by stream: reading a file in pieces it says "Read error", while from mapped bytes some paths (a tile
/// read through TIFFRGBAImage) fail without a word. Judged from the directory, one input is truncated either way.
static int strile_past_end(const tc_tiff_decoder *decoder) {
    TIFF *tif = decoder->tif;
    if (!tif) return 0;
    uint64_t size = decoder->stream.size;
    uint32_t count = tc_tiff.TIFFIsTiled(tif) ? tc_tiff.TIFFNumberOfTiles(tif) : tc_tiff.TIFFNumberOfStrips(tif);
    for (uint32_t i = 0; i < count; i++) {
        int failed = 0;
        uint64_t offset = tc_tiff.TIFFGetStrileOffsetWithErr(tif, i, &failed);
        uint64_t bytes = failed ? 0 : tc_tiff.TIFFGetStrileByteCountWithErr(tif, i, &failed);
        if (!failed && (offset > size || bytes > size - offset)) return 1;
    }
    return 0;
}

static tc_status fail(tc_tiff_decoder *decoder, tc_status status, const char *fallback) {
    if (!decoder->messages.message[0]) snprintf(decoder->messages.message, TC_MESSAGE_CAPACITY, "%s", fallback);
    if (status == TC_CORRUPT && strile_past_end(decoder)) return TC_TRUNCATED;
    // libtiff says "Read error" or "Cannot read" when a strip or directory runs past the end of the data, and
    // "Seek error" when a file read in pieces is asked for an offset our stream refuses (past 2^40: past any end).
    if (status == TC_CORRUPT && (strstr(decoder->messages.message, "past end") || strstr(decoder->messages.message, "Read error")
                                 || strstr(decoder->messages.message, "Cannot read")
                                 || strstr(decoder->messages.message, "Seek error"))) {
        return TC_TRUNCATED;
    }
    if (status == TC_CORRUPT && strstr(decoder->messages.message, "Maximum single memory allocation")) return TC_OVER_BUDGET;
    return status;
}

static int band_rows_of_current(TIFF *tif, uint32_t height) {
    uint32_t rows = 0;
    if (tc_tiff.TIFFIsTiled(tif)) {
        tc_tiff.TIFFGetField(tif, TIFFTAG_TILELENGTH, &rows);
    } else {
        tc_tiff.TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows);
    }
    if (rows == 0 || rows > height) rows = height;
    return (int)rows;
}

static void add_level(tc_tiff_decoder *decoder, int directory, uint64_t offset) {
    tc_tiff_header *header = &decoder->header;
    if (header->level_count >= TC_TIFF_MAX_LEVELS) return;
    uint32_t width = 0, height = 0;
    tc_tiff.TIFFGetField(decoder->tif, TIFFTAG_IMAGEWIDTH, &width);
    tc_tiff.TIFFGetField(decoder->tif, TIFFTAG_IMAGELENGTH, &height);
    if (width == 0 || height == 0 || width > INT32_MAX || height > INT32_MAX) return;
    int at = header->level_count++;
    header->level_width[at] = (int)width;
    header->level_height[at] = (int)height;
    header->level_band_rows[at] = band_rows_of_current(decoder->tif, height);
    decoder->level_directory[at] = directory;
    decoder->level_offset[at] = offset;
}

static char *copy_string_tag(TIFF *tif, uint32_t tag) {
    const char *value = NULL;
    if (!tc_tiff.TIFFGetField(tif, tag, &value) || !value) return NULL;
    return strdup(value);
}

static uint8_t *copy_bytes_tag(TIFF *tif, uint32_t tag, uint32_t *size) {
    uint32_t count = 0;
    const void *value = NULL;
    if (!tc_tiff.TIFFGetField(tif, tag, &count, &value) || !value || count == 0) return NULL;
    uint8_t *copy = malloc(count);
    if (copy) {
        memcpy(copy, value, count);
        *size = count;
    }
    return copy;
}

/// Reads the current directory's layout into the decoder and says whether its samples can be read raw.
static tc_status describe_current(tc_tiff_decoder *decoder) {
    TIFF *tif = decoder->tif;
    uint32_t width = 0, height = 0;
    uint16_t bits = 1, samples = 1, photometric = 0, planar = PLANARCONFIG_CONTIG, format = SAMPLEFORMAT_UINT;
    uint16_t inkset = INKSET_CMYK, extra_count = 0, compression = COMPRESSION_NONE;
    uint16_t *extra = NULL;
    if (!tc_tiff.TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width) || !tc_tiff.TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height)) {
        return fail(decoder, TC_CORRUPT, "the TIFF directory has no image width or length");
    }
    if (width == 0 || height == 0 || width > INT32_MAX || height > INT32_MAX) {
        return fail(decoder, TC_CORRUPT, "the TIFF image has a zero or impossible width or height");
    }
    tc_tiff.TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
    tc_tiff.TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
    tc_tiff.TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    tc_tiff.TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
    tc_tiff.TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    tc_tiff.TIFFGetFieldDefaulted(tif, TIFFTAG_INKSET, &inkset);
    tc_tiff.TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra);
    if (!tc_tiff.TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric)) {
        photometric = samples >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    }
    if (!tc_tiff.TIFFIsCODECConfigured(compression)) {
        snprintf(decoder->messages.message, TC_MESSAGE_CAPACITY, "TIFF compression %u is not supported", compression);
        return TC_UNSUPPORTED;
    }
    decoder->width = (int)width;
    decoder->height = (int)height;
    decoder->bits = bits;
    decoder->samples = samples;
    decoder->photometric = photometric;
    decoder->tiled = tc_tiff.TIFFIsTiled(tif);
    decoder->band_rows = band_rows_of_current(tif, height);
    int colours = photometric == PHOTOMETRIC_SEPARATED ? 4 : (photometric == PHOTOMETRIC_RGB ? 3 : 1);
    decoder->colour_samples = colours;
    // Extra samples: the first is alpha when it says so, or (unspecified) when it is the one sample past the colours.
    decoder->alpha_sample = -1;
    decoder->associated = 0;
    if (extra_count > 0 && samples > colours && photometric != PHOTOMETRIC_SEPARATED) {
        if (extra[0] == EXTRASAMPLE_ASSOCALPHA || extra[0] == EXTRASAMPLE_UNASSALPHA
            || (extra[0] == EXTRASAMPLE_UNSPECIFIED && samples == colours + 1)) {
            decoder->alpha_sample = colours;
            decoder->associated = extra[0] == EXTRASAMPLE_ASSOCALPHA;
        }
    }
    decoder->raw = (bits == 8 || bits == 16) && format == SAMPLEFORMAT_UINT
        && (planar == PLANARCONFIG_CONTIG || samples == 1)
        && ((photometric == PHOTOMETRIC_MINISBLACK && samples >= 1)
            || (photometric == PHOTOMETRIC_RGB && samples >= 3)
            || (photometric == PHOTOMETRIC_SEPARATED && inkset == INKSET_CMYK && samples >= 4));
    tc_tiff_header *header = &decoder->header;
    header->width = (int)width;
    header->height = (int)height;
    header->bits_per_sample = bits;
    header->samples_per_pixel = samples;
    header->photometric = photometric;
    header->compression = compression;
    header->planar = planar;
    header->tiled = decoder->tiled;
    header->band_rows = decoder->band_rows;
    header->is_cmyk = decoder->raw && photometric == PHOTOMETRIC_SEPARATED;
    header->is_grey = photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE;
    // TIFFRGBAImage keeps alpha for associated or unassociated extra samples (and for unspecified ones in RGBA).
    header->has_alpha = decoder->raw ? decoder->alpha_sample >= 0
        : (extra_count > 0 && photometric != PHOTOMETRIC_SEPARATED
           && (extra[0] != EXTRASAMPLE_UNSPECIFIED || (photometric == PHOTOMETRIC_RGB && samples == 4)));
    uint16_t orientation = ORIENTATION_TOPLEFT;
    tc_tiff.TIFFGetFieldDefaulted(tif, TIFFTAG_ORIENTATION, &orientation);
    header->orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
    return TC_OK;
}

tc_status tc_tiff_read_header(tc_tiff_decoder *decoder, tc_tiff_header *header) {
    TIFFOpenOptions *options = open_options(&decoder->messages, decoder->max_single_alloc);
    if (!options) return fail(decoder, TC_NO_MEMORY, "out of memory");
    decoder->tif = tc_tiff.TIFFClientOpenExt("memory", "r", &decoder->stream, stream_read, stream_no_write, stream_seek,
                                     stream_close, stream_size, stream_map, stream_unmap, options);
    tc_tiff.TIFFOpenOptionsFree(options);
    if (!decoder->tif) return fail(decoder, TC_CORRUPT, "not a readable TIFF file");
    TIFF *tif = decoder->tif;
    // Walk the main chain: pages are the directories that are not reduced-resolution subfiles; the reduced ones
    // after the first page (a pyramid as vips writes it) are its levels. libtiff refuses an IFD loop.
    int pages = 0, directory = 0, first_page = -1;
    do {
        uint32_t subfile = 0;
        tc_tiff.TIFFGetField(tif, TIFFTAG_SUBFILETYPE, &subfile);
        if (!(subfile & FILETYPE_REDUCEDIMAGE)) {
            pages++;
            if (first_page < 0) first_page = directory;
        } else if (pages == 1) {
            add_level(decoder, directory, 0);
        }
        directory++;
    } while (directory < MAX_DIRECTORIES && tc_tiff.TIFFReadDirectory(tif));
    decoder->messages.message[0] = 0;  // a bad later directory does not spoil the first page
    decoder->page_directory = first_page < 0 ? 0 : first_page;
    if (!tc_tiff.TIFFSetDirectory(tif, (tdir_t)decoder->page_directory)) return fail(decoder, TC_CORRUPT, "cannot read the first TIFF directory");
    // Levels may also be SubIFDs of the page (vips tiffsave --subifd).
    uint16_t sub_count = 0;
    uint64_t *sub_offsets = NULL;
    if (tc_tiff.TIFFGetField(tif, TIFFTAG_SUBIFD, &sub_count, &sub_offsets) && sub_count > 0) {
        uint64_t offsets[TC_TIFF_MAX_LEVELS];
        int count = sub_count < TC_TIFF_MAX_LEVELS ? sub_count : TC_TIFF_MAX_LEVELS;
        memcpy(offsets, sub_offsets, (size_t)count * sizeof offsets[0]);
        for (int i = 0; i < count; i++) {
            if (!tc_tiff.TIFFSetSubDirectory(tif, offsets[i])) continue;
            uint32_t subfile = 0;
            tc_tiff.TIFFGetField(tif, TIFFTAG_SUBFILETYPE, &subfile);
            if (subfile & FILETYPE_REDUCEDIMAGE) add_level(decoder, -1, offsets[i]);
        }
        decoder->messages.message[0] = 0;
        if (!tc_tiff.TIFFSetDirectory(tif, (tdir_t)decoder->page_directory)) return fail(decoder, TC_CORRUPT, "cannot read the first TIFF directory");
    }
    tc_tiff_header levels = decoder->header;
    tc_status status = describe_current(decoder);
    if (status != TC_OK) return status;
    decoder->header.page_count = pages < 1 ? 1 : pages;
    decoder->header.level_count = levels.level_count;
    memcpy(decoder->header.level_width, levels.level_width, sizeof levels.level_width);
    memcpy(decoder->header.level_height, levels.level_height, sizeof levels.level_height);
    memcpy(decoder->header.level_band_rows, levels.level_band_rows, sizeof levels.level_band_rows);
    decoder->icc = copy_bytes_tag(tif, TIFFTAG_ICCPROFILE, &decoder->icc_size);
    decoder->xmp = copy_bytes_tag(tif, TIFFTAG_XMLPACKET, &decoder->xmp_size);
    decoder->copyright = copy_string_tag(tif, TIFFTAG_COPYRIGHT);
    decoder->artist = copy_string_tag(tif, TIFFTAG_ARTIST);
    *header = decoder->header;
    return TC_OK;
}

const uint8_t *tc_tiff_icc(const tc_tiff_decoder *decoder, size_t *length) {
    *length = decoder->icc_size;
    return decoder->icc;
}

const uint8_t *tc_tiff_xmp(const tc_tiff_decoder *decoder, size_t *length) {
    *length = decoder->xmp_size;
    return decoder->xmp;
}

const char *tc_tiff_copyright(const tc_tiff_decoder *decoder) { return decoder->copyright; }
const char *tc_tiff_artist(const tc_tiff_decoder *decoder) { return decoder->artist; }

tc_status tc_tiff_start(tc_tiff_decoder *decoder, int level, int *width, int *height, int *band_rows, int *channels) {
    TIFF *tif = decoder->tif;
    if (level >= 0 && level < decoder->header.level_count) {
        int ok = decoder->level_directory[level] >= 0 ? tc_tiff.TIFFSetDirectory(tif, (tdir_t)decoder->level_directory[level])
                                                       : tc_tiff.TIFFSetSubDirectory(tif, decoder->level_offset[level]);
        if (!ok) return fail(decoder, TC_CORRUPT, "cannot read the reduced-resolution TIFF directory");
        int page_is_cmyk = decoder->header.is_cmyk;
        tc_status status = describe_current(decoder);
        if (status != TC_OK) return status;
        // A level must deliver what the page promised (4 bytes a pixel of the same kind).
        if (decoder->header.is_cmyk != page_is_cmyk) return fail(decoder, TC_UNSUPPORTED, "the reduced TIFF level is another colour space");
    }
    decoder->channels = decoder->header.is_cmyk || decoder->header.has_alpha ? 4 : 3;
    decoder->as_stored = decoder->raw && decoder->bits == 8 && decoder->samples == decoder->channels && !decoder->associated
        && (decoder->colour_samples == 4 || (decoder->colour_samples == 3 && (decoder->channels == 3 || decoder->alpha_sample == 3)));
    if (decoder->raw) {
        size_t sample_bytes = (size_t)decoder->bits / 8;
        size_t row_bytes = (size_t)decoder->width * decoder->samples * sample_bytes;
        if (decoder->tiled) {
            if (!tc_tiff.TIFFGetField(tif, TIFFTAG_TILEWIDTH, &decoder->tile_width) || !tc_tiff.TIFFGetField(tif, TIFFTAG_TILELENGTH, &decoder->tile_height)
                || decoder->tile_width == 0 || decoder->tile_height == 0) {
                return fail(decoder, TC_CORRUPT, "the TIFF tile size is missing or zero");
            }
            tmsize_t tile_size = tc_tiff.TIFFTileSize(tif);
            if (tile_size <= 0) return fail(decoder, TC_CORRUPT, "the TIFF tile size is impossible");
            decoder->tile = malloc((size_t)tile_size);
        } else {
            // Strips are read a scanline at a time, so a strip of the whole image still streams.
            decoder->band_rows = decoder->band_rows < 16 ? decoder->band_rows : 16;
        }
        // Samples that are the delivered pixels go straight into the caller's band; others are converted from ours.
        if (!decoder->as_stored) decoder->band = malloc(row_bytes * decoder->band_rows);
        if ((!decoder->as_stored && !decoder->band) || (decoder->tiled && !decoder->tile)) {
            return fail(decoder, TC_NO_MEMORY, "out of memory");
        }
    } else {
        char reason[1024] = {0};
        if (!tc_tiff.TIFFRGBAImageOK(tif, reason)) {
            snprintf(decoder->messages.message, TC_MESSAGE_CAPACITY, "%s", reason);
            return TC_UNSUPPORTED;
        }
        if (!tc_tiff.TIFFRGBAImageBegin(&decoder->rgba, tif, 1, reason)) {
            if (!decoder->messages.message[0]) snprintf(decoder->messages.message, TC_MESSAGE_CAPACITY, "%s", reason);
            return fail(decoder, TC_CORRUPT, "cannot decode the TIFF image");
        }
        decoder->rgba_started = 1;
        // Rows are wanted as stored, top first: the caller applies the Orientation tag itself.
        decoder->rgba.req_orientation = ORIENTATION_TOPLEFT;
        decoder->rgba.orientation = ORIENTATION_TOPLEFT;
        decoder->raster = malloc((size_t)decoder->width * decoder->band_rows * 4);
        if (!decoder->raster) return fail(decoder, TC_NO_MEMORY, "out of memory");
    }
    decoder->next_row = 0;
    *width = decoder->width;
    *height = decoder->height;
    *band_rows = decoder->band_rows;
    *channels = decoder->channels;
    return TC_OK;
}

static inline uint8_t unpremultiply(uint8_t value, uint8_t alpha) {
    if (alpha == 255) return value;
    if (alpha == 0) return 0;
    unsigned v = ((unsigned)value * 255 + alpha / 2) / alpha;
    return v > 255 ? 255 : (uint8_t)v;
}

/// One row of stored samples (8- or 16-bit, native order) to the delivered pixels (`channels` bytes each).
static void convert_raw_row(const tc_tiff_decoder *decoder, const uint8_t *in, uint8_t *out) {
    int samples = decoder->samples, alpha = decoder->alpha_sample, colours = decoder->colour_samples;
    int channels = decoder->channels;
    if (decoder->bits == 8 && colours == 1 && alpha < 0) {  // 8-bit grey, the common case of the loop below
        for (int x = 0; x < decoder->width; x++, out += 3) out[0] = out[1] = out[2] = in[(size_t)x * samples];
        return;
    }
    if (decoder->bits == 8 && colours == 3 && alpha < 0) {  // 8-bit RGB with unused extra samples
        for (int x = 0; x < decoder->width; x++, in += samples, out += 3) {
            out[0] = in[0]; out[1] = in[1]; out[2] = in[2];
        }
        return;
    }
    for (int x = 0; x < decoder->width; x++) {
        uint8_t s[5] = {0, 0, 0, 0, 255};
        int wanted = colours + (alpha >= 0 ? 1 : 0);
        for (int c = 0; c < wanted && c < 5; c++) {
            int index = c < colours ? c : alpha;
            size_t at = (size_t)x * samples + index;
            s[c] = decoder->bits == 16 ? (uint8_t)(((const uint16_t *)in)[at] >> 8) : in[at];
        }
        uint8_t *pixel = out + (size_t)x * channels;
        if (colours == 4) {
            memcpy(pixel, s, 4);
        } else if (colours == 3) {
            uint8_t a = alpha >= 0 ? s[3] : 255;
            if (decoder->associated) {
                for (int c = 0; c < 3; c++) s[c] = unpremultiply(s[c], a);
            }
            pixel[0] = s[0]; pixel[1] = s[1]; pixel[2] = s[2];
            if (channels == 4) pixel[3] = a;
        } else {
            uint8_t a = alpha >= 0 ? s[1] : 255;
            uint8_t grey = decoder->associated ? unpremultiply(s[0], a) : s[0];
            pixel[0] = pixel[1] = pixel[2] = grey;
            if (channels == 4) pixel[3] = a;
        }
    }
}

tc_status tc_tiff_read_band(tc_tiff_decoder *decoder, uint8_t *out, int *rows) {
    TIFF *tif = decoder->tif;
    int row = decoder->next_row;
    int count = decoder->height - row < decoder->band_rows ? decoder->height - row : decoder->band_rows;
    *rows = 0;
    if (count <= 0) return TC_OK;
    size_t out_stride = (size_t)decoder->width * decoder->channels;
    if (decoder->raw) {
        size_t pixel_bytes = (size_t)decoder->samples * (decoder->bits / 8);
        size_t row_bytes = (size_t)decoder->width * pixel_bytes;
        uint8_t *band = decoder->as_stored ? out : decoder->band;  // as_stored: row_bytes == out_stride
        if (decoder->tiled) {
            for (uint32_t x = 0; x < (uint32_t)decoder->width; x += decoder->tile_width) {
                ttile_t tile = tc_tiff.TIFFComputeTile(tif, x, (uint32_t)row, 0, 0);
                if (tc_tiff.TIFFReadEncodedTile(tif, tile, decoder->tile, (tmsize_t)-1) < 0) {
                    return fail(decoder, TC_CORRUPT, "cannot decode a TIFF tile");
                }
                uint32_t span = decoder->width - x < decoder->tile_width ? decoder->width - x : decoder->tile_width;
                for (int y = 0; y < count; y++) {
                    memcpy(band + y * row_bytes + x * pixel_bytes,
                           decoder->tile + (size_t)y * decoder->tile_width * pixel_bytes, span * pixel_bytes);
                }
            }
        } else {
            for (int y = 0; y < count; y++) {
                if (tc_tiff.TIFFReadScanline(tif, band + y * row_bytes, (uint32_t)(row + y), 0) < 0) {
                    return fail(decoder, TC_CORRUPT, "cannot decode a TIFF strip");
                }
            }
        }
        if (!decoder->as_stored) {
            for (int y = 0; y < count; y++) convert_raw_row(decoder, band + y * row_bytes, out + y * out_stride);
        }
    } else {
        decoder->rgba.row_offset = row;
        decoder->rgba.col_offset = 0;
        if (!tc_tiff.TIFFRGBAImageGet(&decoder->rgba, decoder->raster, (uint32_t)decoder->width, (uint32_t)count)) {
            return fail(decoder, TC_CORRUPT, "cannot decode the TIFF image");
        }
        int premultiplied = decoder->rgba.alpha != 0;
        for (int y = 0; y < count; y++) {
            const uint32_t *in = decoder->raster + (size_t)y * decoder->width;
            uint8_t *pixel = out + y * out_stride;
            for (int x = 0; x < decoder->width; x++, pixel += decoder->channels) {
                uint32_t value = in[x];
                uint8_t a = premultiplied ? (uint8_t)TIFFGetA(value) : 255;
                pixel[0] = premultiplied ? unpremultiply((uint8_t)TIFFGetR(value), a) : (uint8_t)TIFFGetR(value);
                pixel[1] = premultiplied ? unpremultiply((uint8_t)TIFFGetG(value), a) : (uint8_t)TIFFGetG(value);
                pixel[2] = premultiplied ? unpremultiply((uint8_t)TIFFGetB(value), a) : (uint8_t)TIFFGetB(value);
                if (decoder->channels == 4) pixel[3] = a;
            }
        }
    }
    decoder->next_row = row + count;
    *rows = count;
    return TC_OK;
}

// MARK: Encoding

tc_status tc_tiff_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels,
                         const tc_metadata *metadata, const char *copyright, const char *artist, tc_encoded *out) {
    memset(out, 0, sizeof *out);
    const char *unloaded = tc_tiff_library_error();
    if (unloaded) {
        snprintf(out->message, sizeof out->message, "%s", unloaded);
        return TC_UNSUPPORTED;
    }
    tc_tiff_messages messages = {{0}};
    tc_tiff_stream stream = {0};
    TIFFOpenOptions *options = open_options(&messages, 0);
    if (!options) return TC_NO_MEMORY;
    TIFF *tif = tc_tiff.TIFFClientOpenExt("memory", "w", &stream, stream_read, stream_write, stream_seek, stream_close,
                                  stream_size, stream_no_map, stream_unmap, options);
    tc_tiff.TIFFOpenOptionsFree(options);
    tc_status status = TC_OK;
    uint8_t *row = NULL;
    if (!tif) {
        status = TC_NO_MEMORY;
        goto done;
    }
    tc_tiff.TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)width);
    tc_tiff.TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)height);
    tc_tiff.TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8);
    tc_tiff.TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, channels);
    tc_tiff.TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    tc_tiff.TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
    tc_tiff.TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
    tc_tiff.TIFFSetField(tif, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
    tc_tiff.TIFFSetField(tif, TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT);
    if (channels == 4 || channels == 2) {
        uint16_t extra = EXTRASAMPLE_UNASSALPHA;
        tc_tiff.TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &extra);
    }
    tc_tiff.TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, tc_tiff.TIFFDefaultStripSize(tif, 0));
    if (metadata && metadata->icc && metadata->icc_size) tc_tiff.TIFFSetField(tif, TIFFTAG_ICCPROFILE, (uint32_t)metadata->icc_size, metadata->icc);
    if (metadata && metadata->xmp && metadata->xmp_size) tc_tiff.TIFFSetField(tif, TIFFTAG_XMLPACKET, (uint32_t)metadata->xmp_size, metadata->xmp);
    if (copyright) tc_tiff.TIFFSetField(tif, TIFFTAG_COPYRIGHT, copyright);
    if (artist) tc_tiff.TIFFSetField(tif, TIFFTAG_ARTIST, artist);
    // The predictor rewrites the row it is given: each row is copied first.
    size_t row_bytes = (size_t)width * channels;
    row = malloc(row_bytes);
    if (!row) {
        status = TC_NO_MEMORY;
        goto done;
    }
    for (int y = 0; y < height; y++) {
        memcpy(row, pixels + (size_t)y * stride, row_bytes);
        if (tc_tiff.TIFFWriteScanline(tif, row, (uint32_t)y, 0) < 0) {
            status = stream.failed ? TC_NO_MEMORY : TC_CORRUPT;
            goto done;
        }
    }
    if (!tc_tiff.TIFFWriteDirectory(tif)) status = stream.failed ? TC_NO_MEMORY : TC_CORRUPT;
done:
    if (tif) tc_tiff.TIFFClose(tif);
    free(row);
    if (status == TC_OK && stream.failed) status = TC_NO_MEMORY;
    if (status != TC_OK) {
        snprintf(out->message, sizeof out->message, "%s", messages.message[0] ? messages.message : "TIFF encoding failed");
        free(stream.data);
        return status;
    }
    out->data = stream.data;
    out->size = stream.size;
    return TC_OK;
}
