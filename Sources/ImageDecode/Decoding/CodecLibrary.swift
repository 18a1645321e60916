import CHeifJxlGlue
import CTiffGlue
import CWebpGifAvifGlue

/// The codec libraries the glue opens at first use instead of linking (Sources/CJpegPngGlue/include/tc_library.h
/// says why): a decoder or encoder for their formats loads its library before anything else, so a machine without
/// it refuses those formats with what to install while every other format works.
enum CodecLibrary {
    /// libavif (AVIF in and out, with its AV1 codecs: dav1d, aom and the rest).
    case avif
    /// libheif and libde265 (HEIC/HEIF in and out).
    case heif
    /// libjxl and libjxl_threads (JPEG XL in and out).
    case jxl
    /// libtiff (TIFF in and out).
    case tiff

    /// Loads the library on the first call (once per process, from any thread); the loader's reason, every call
    /// after, when it cannot be.
    func load() throws(ImageDecodeError) {
        let failure = switch self {
        case .avif: tc_avif_library_error()
        case .heif: tc_heif_library_error()
        case .jxl: tc_jxl_library_error()
        case .tiff: tc_tiff_library_error()
        }
        if let failure { throw .libraryUnavailable(String(cString: failure)) }
    }
}
