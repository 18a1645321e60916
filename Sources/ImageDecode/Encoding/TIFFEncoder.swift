import Foundation
import CJpegPngGlue
import CTiffGlue

/// Writes 8-bit RGB, RGBA or (for a neutral image of a grey source) grey TIFF, deflate-compressed with the horizontal
/// predictor: lossless like vips' default (which writes uncompressed), and several times smaller. Metadata where TIFF
/// carries it: the ICC profile tag, XMP in the XMLPacket tag, EXIF IFD0's Copyright and Artist as TIFF's own tags.
enum TIFFEncoder {
    static func encode(_ image: PixelBuffer, grey: Bool = false, metadata: ImageMetadata = ImageMetadata())
        throws(ImageDecodeError) -> Data {
        try CodecLibrary.tiff.load()
        // Grey with alpha would need an extra-sample grey layout few readers take: grey is written only without alpha.
        let greyOut = grey && image.channels == 3
        let pixels = greyOut ? image.greyPixels(keepingAlpha: false) : image.pixels
        let channels = greyOut ? 1 : image.channels
        var encoded = tc_encoded()
        let copyright = metadata.copyright, artist = metadata.artist
        var tagsOnly = metadata
        tagsOnly.exif = nil  // EXIF is not written as an EXIF IFD; its copyright goes in TIFF's own tags
        let status = try tagsOnly.withGlue(grey: greyOut) { glue in
            pixels.withUnsafeBufferPointer { pixels in
                tc_tiff_encode(pixels.baseAddress, Int32(image.width), Int32(image.height), image.width * channels,
                               Int32(channels), glue, copyright, artist, &encoded)
            }
        }
        return try takeEncoded(&encoded, status: status)
    }
}
