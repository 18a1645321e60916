import Foundation
import CJpegPngGlue

/// Encodes thumbnails as non-interlaced 8-bit PNG, RGBA when the image has alpha.
enum PNGEncoder {
    static func encode(_ image: PixelBuffer) throws(ImageDecodeError) -> Data {
        var encoded = tc_encoded()
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            tc_png_encode(pixels.baseAddress, Int32(image.width), Int32(image.height), image.rowBytes,
                          Int32(image.channels), &encoded)
        }
        return try takeEncoded(&encoded, status: status)
    }
}
