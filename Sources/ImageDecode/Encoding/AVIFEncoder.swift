import Foundation
import CWebpGifAvifGlue
import CJpegPngGlue

/// Encodes thumbnails as 8-bit AVIF through libaom: 4:2:0, or 4:0:0 (luma only) for a neutral image of a grey
/// source; sRGB (nclx 1/13/6), keeping alpha; the metadata given as Exif and XMP items and a colr profile.
enum AVIFEncoder {
    /// libaom speed 9: the fastest speed that keeps a 256 px encode well inside the ~15 ms budget; speed 8
    /// went over it for a little more saving (docs/benchmarks.md, "Why speed 9").
    static let speed = 9

    static func encode(_ image: PixelBuffer, quality: Int, grey: Bool = false,
                       metadata: ImageMetadata = ImageMetadata()) throws(ImageDecodeError) -> Data {
        try CodecLibrary.avif.load()
        var encoded = tc_encoded()
        // libavif takes RGB(A) rows and codes only their luma for 4:0:0; neutral rows lose nothing by it.
        let status = try metadata.withGlue(grey: grey) { glue in
            image.pixels.withUnsafeBufferPointer { pixels in
                tc_avif_encode(pixels.baseAddress, Int32(image.width), Int32(image.height), image.rowBytes,
                               Int32(image.channels), grey ? 1 : 0, Int32(quality), Int32(speed), glue, &encoded)
            }
        }
        return try takeEncoded(&encoded, status: status)
    }
}
