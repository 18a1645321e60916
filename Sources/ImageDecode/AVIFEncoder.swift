import Foundation
import CImageFormats
import CImageSupport

/// Encodes thumbnails as 8-bit 4:2:0 AVIF through libaom, sRGB (nclx 1/13/6), keeping alpha, no metadata.
enum AVIFEncoder {
    /// libaom speed 9: a 256 px encode at q80 takes 5.4 ms (median, 11.4 max) here, where speed 8 took
    /// 23 ms (39.6 max), over the issue's ~15 ms budget, for 9 points more saving at equal SSIM
    /// (-33% vs -24% against JPEG q80; scripts/bench-formats.sh sizes, 50 photos, 2026-11-25).
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
