import Foundation
import CWebpGifAvifGlue
import CJpegPngGlue

/// Encodes thumbnails as 8-bit 4:2:0 AVIF through libaom, sRGB (nclx 1/13/6), keeping alpha, no metadata.
enum AVIFEncoder {
    /// libaom speed 9: the fastest speed that keeps a 256 px encode well inside the ~15 ms budget; speed 8
    /// went over it for a little more saving (docs/benchmarks.md, "Why speed 9").
    static let speed = 9

    static func encode(_ image: PixelBuffer, quality: Int) throws(ImageDecodeError) -> Data {
        var encoded = tc_encoded()
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            tc_avif_encode(pixels.baseAddress, Int32(image.width), Int32(image.height), image.rowBytes,
                           Int32(image.channels), Int32(quality), Int32(speed), &encoded)
        }
        return try takeEncoded(&encoded, status: status)
    }
}
