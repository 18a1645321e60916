import Foundation

/// Entry point for writing thumbnails: each writable format's encoder behind one call, the counterpart
/// of `ImageDecoder`. Output is sRGB (unless a kept profile says otherwise) with the metadata it is given.
public enum ImageEncoder {
    /// The quality used when a request names none, per format: JPEG q80, and the WebP and AVIF qualities whose
    /// median SSIM on the photo corpus reaches JPEG q80's in fewer bytes (docs/benchmarks.md, "Default quality per
    /// format", `scripts/format-quality.py`). HEIC takes q80, imgproxy's general default (it has no HEIC entry in
    /// `IMGPROXY_FORMAT_QUALITY`). PNG is lossless and ignores it. The one place these defaults live.
    public static func defaultQuality(for format: ImageFormat) -> Int {
        switch format {
        case .jpeg, .png, .gif, .heic, .tiff, .bmp, .ico, .svg: 80
        case .webp: 73
        case .avif: 60
        case .jxl: 77
        }
    }

    /// Encodes `image` as `format`. `quality` (1-100; nil: `defaultQuality(for: format)`) applies to JPEG, WebP,
    /// AVIF, JPEG XL and HEIC; PNG and GIF (a palette per image, `GIFEncoder`) ignore it, as do TIFF (deflate), BMP and ICO (a PNG inside,
    /// at most 256 px a side), which are lossless. RGBA keeps its alpha except in JPEG, where it is flattened onto white.
    /// `grey`: every pixel is neutral (R = G = B; `PixelBuffer.isNeutral`), so JPEG writes one component, PNG grey or
    /// grey+alpha and AVIF 4:0:0; WebP has no grey layout and HEIC none libvips writes: both write RGB(A). `metadata`
    /// is written as it is given.
    public static func encode(_ image: PixelBuffer, as format: ImageFormat, quality: Int? = nil, grey: Bool = false,
                              metadata: ImageMetadata = ImageMetadata()) throws(ImageDecodeError) -> Data {
        let quality = quality ?? defaultQuality(for: format)
        return switch format {
        case .jpeg: try JPEGEncoder.encode(image, quality: quality, grey: grey, metadata: metadata)
        case .png: try PNGEncoder.encode(image, grey: grey, metadata: metadata)
        case .webp: try WebPEncoder.encode(image, quality: quality, metadata: metadata)
        case .avif: try AVIFEncoder.encode(image, quality: quality, grey: grey, metadata: metadata)
        case .gif: try GIFEncoder.encode(image)
        case .jxl: try JXLEncoder.encode(image, quality: quality, grey: grey, metadata: metadata)
        case .tiff: try TIFFEncoder.encode(image, grey: grey, metadata: metadata)
        case .bmp: try BMPEncoder.encode(image, grey: grey)
        case .ico: try ICOEncoder.encode(image, grey: grey, metadata: metadata)
        case .heic: try HEICEncoder.encode(image, quality: quality, metadata: metadata)
        case .svg: throw .invalidRequest(unwritable(format))
        }
    }

    /// What encoding a `width` × `height` result as `format` holds beyond the result itself (which every render
    /// counts: `PlanRenderer.outputMemory`). Only HEIC's is counted: x265 keeps several copies of the picture and
    /// per-block analysis buffers, 32 bytes a pixel over a fixed 10 MiB (`HEICEncoder.workingMemory`); the
    /// other encoders write from the caller's rows with buffers of about the output's size.
    public static func workingMemory(for format: ImageFormat, width: Int, height: Int) -> Int {
        format == .heic ? HEICEncoder.workingMemory(width: width, height: height) : 0
    }

    static func unwritable(_ format: ImageFormat) -> String {
        if format.isAskable {
            // SVG: never drawn from pixels (`ImageFormat.isAskable`).
            return "\(format.rawValue) is answered only for \(format.rawValue) sources, passed through; this image has to be "
                + "drawn: choose \(ImageFormat.names(ImageFormat.encodable))"
        }
        return "\(format.rawValue) output is not supported; choose \(ImageFormat.names(ImageFormat.encodable))"
    }
}
