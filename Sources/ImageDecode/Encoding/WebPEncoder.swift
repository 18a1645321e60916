import Foundation
import CWebpGifAvifGlue
import CJpegPngGlue

/// Encodes thumbnails as lossy WebP (method 4), keeping alpha, no metadata.
enum WebPEncoder {
    static func encode(_ image: PixelBuffer, quality: Int) throws(ImageDecodeError) -> Data {
        var encoded = tc_encoded()
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            tc_webp_encode(pixels.baseAddress, Int32(image.width), Int32(image.height), image.rowBytes,
                           Int32(image.channels), Int32(quality), &encoded)
        }
        return try takeEncoded(&encoded, status: status)
    }
}
