import Foundation
import CHeifJxlGlue
import CJpegPngGlue

/// Encodes thumbnails as lossy 8-bit JPEG XL through libjxl: RGB(A), or grey (+alpha) for a neutral image of a grey
/// source; sRGB declared (or the kept ICC profile); Exif and XMP as boxes of a container when metadata is kept.
enum JXLEncoder {
    /// imgproxy's default effort (IMGPROXY_JXL_EFFORT 4); libvips' own default, 7, costs several times the time for
    /// a few per cent on thumbnails (docs/benchmarks.md, "Issue 32: HEIC and JPEG XL").
    static let effort = 4

    /// Quality 1-100 to a butteraugli distance as cjxl and libvips' jxlsave map it: q90 is distance 1.0 (visually
    /// lossless), q77 (the default) 2.17, q100 0.1. Never lossless (distance 0): imgproxy has no lossless JPEG XL either.
    static func distance(quality: Int) -> Float {
        let q = Double(min(max(quality, 1), 100))
        return Float(q >= 30 ? 0.1 + (100 - q) * 0.09 : 6.4 + pow(2.5, (30 - q) / 5) / 6.25)
    }

    static func encode(_ image: PixelBuffer, quality: Int, grey: Bool = false,
                       metadata: ImageMetadata = ImageMetadata()) throws(ImageDecodeError) -> Data {
        try CodecLibrary.jxl.load()
        let (pixels, channels) = image.encodedLayout(grey: grey)
        var encoded = tc_encoded()
        let status = try metadata.withGlue(grey: grey) { glue in
            pixels.withUnsafeBufferPointer { pixels in
                tc_jxl_encode(pixels.baseAddress, Int32(image.width), Int32(image.height), image.width * channels,
                              Int32(channels), distance(quality: quality), Int32(effort), glue, &encoded)
            }
        }
        return try takeEncoded(&encoded, status: status)
    }
}
