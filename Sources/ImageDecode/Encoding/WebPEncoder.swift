import Foundation
import CWebpGifAvifGlue
import CJpegPngGlue

/// Encodes thumbnails as lossy WebP (method 4), keeping alpha; the metadata given as EXIF, XMP and ICCP chunks.
/// WebP has no grey layout (VP8 is always YUV 4:2:0), so a grey source is written as RGB here.
enum WebPEncoder {
    static func encode(_ image: PixelBuffer, quality: Int, metadata: ImageMetadata = ImageMetadata()) throws(ImageDecodeError) -> Data {
        var encoded = tc_encoded()
        let status = try metadata.withGlue(grey: false) { glue in
            image.pixels.withUnsafeBufferPointer { pixels in
                tc_webp_encode(pixels.baseAddress, Int32(image.width), Int32(image.height), image.rowBytes,
                               Int32(image.channels), Int32(quality), glue, &encoded)
            }
        }
        return try takeEncoded(&encoded, status: status)
    }
}
