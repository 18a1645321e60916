import Foundation

/// Entry point for writing thumbnails: each writable format's encoder behind one call, the counterpart
/// of `ImageDecoder`. Output is sRGB without metadata in every format.
public enum ImageEncoder {
    /// The quality used when a request names none: JPEG q80, WebP q80, AVIF at libavif's quality 80.
    public static let defaultQuality = 80

    /// Encodes `image` as `format`. `quality` (1-100) applies to JPEG, WebP and AVIF; PNG is lossless.
    /// RGBA keeps its alpha except in JPEG, where it is flattened onto white.
    public static func encode(_ image: PixelBuffer, as format: ImageFormat,
                              quality: Int = defaultQuality) throws(ImageDecodeError) -> Data {
        switch format {
        case .jpeg: try JPEGEncoder.encode(image, quality: quality)
        case .png: try PNGEncoder.encode(image)
        case .webp: try WebPEncoder.encode(image, quality: quality)
        case .avif: try AVIFEncoder.encode(image, quality: quality)
        case .gif: throw .invalidRequest(unwritable(format))
        }
    }

    static func unwritable(_ format: ImageFormat) -> String {
        "\(format.rawValue) output is not supported; choose one of "
            + ImageFormat.encodable.map(\.rawValue).joined(separator: ", ")
    }
}
