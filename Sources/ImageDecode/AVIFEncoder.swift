import Foundation
import CImageFormats
import CImageSupport

/// Encodes thumbnails as 8-bit 4:2:0 AVIF through libaom, sRGB (nclx 1/13/6), keeping alpha, no metadata.
enum AVIFEncoder {
    /// libaom speed 8: a 256 px encode took about 12 ms here (one thread; scripts/bench-formats.sh),
    /// where speed 6 costs about 3x the time for a few percent fewer bytes.
    static let speed = 8

    static func encode(_ image: PixelBuffer, quality: Int) throws(ImageDecodeError) -> Data {
        var encoded = tc_encoded()
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            tc_avif_encode(pixels.baseAddress, Int32(image.width), Int32(image.height), image.rowBytes,
                           Int32(image.channels), Int32(quality), Int32(speed), &encoded)
        }
        return try takeEncoded(&encoded, status: status)
    }
}
