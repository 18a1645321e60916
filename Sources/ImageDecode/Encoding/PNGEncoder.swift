import Foundation
import CJpegPngGlue

/// Encodes thumbnails as non-interlaced 8-bit PNG: RGB, RGBA when the image has alpha, grey or grey+alpha for a
/// neutral image of a grey source; the metadata given as eXIf, iTXt (XMP) and iCCP chunks.
enum PNGEncoder {
    static func encode(_ image: PixelBuffer, grey: Bool = false,
                       metadata: ImageMetadata = ImageMetadata()) throws(ImageDecodeError) -> Data {
        let (pixels, channels) = image.encodedLayout(grey: grey)
        var encoded = tc_encoded()
        let status = try metadata.withGlue(grey: grey) { glue in
            pixels.withUnsafeBufferPointer { pixels in
                tc_png_encode(pixels.baseAddress, Int32(image.width), Int32(image.height), image.width * channels,
                              Int32(channels), glue, &encoded)
            }
        }
        return try takeEncoded(&encoded, status: status)
    }
}
