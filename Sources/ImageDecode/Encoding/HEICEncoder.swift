import Foundation
import CHeifJxlGlue
import CJpegPngGlue

/// Encodes thumbnails as 8-bit HEIC (HEVC through libheif's x265 encoder) as libvips' heifsave does for imgproxy:
/// x265's defaults (preset slow, tune SSIM), chroma 4:2:0 below quality 90 and 4:4:4 from it, RGB (a grey source too:
/// libvips writes no 4:0:0 HEIC), alpha kept as an auxiliary image; the metadata given as a colr profile and Exif and
/// XMP items. x265 encodes on one thread of its own, without a pool, while the render's thread waits (`tc_heif_encode`).
enum HEICEncoder {
    /// libheif, loaded, with an HEVC encoder (its x265 plugin), or why not. Asked when an encode needs it, not when
    /// formats are listed: HEIC is counted written in every build (`ImageFormat.isEncodable`), as JPEG XL is, since
    /// knowing would mean loading libheif in every process (`CodecLibrary`).
    static func checkAvailable() throws(ImageDecodeError) {
        try CodecLibrary.heif.load()
        guard tc_heif_can_encode() != 0 else {
            throw .libraryUnavailable("libheif.so.1 has no HEVC encoder (its x265 plugin); install a libheif built with "
                                      + "x265 (Debian: libheif1), or ask for another format")
        }
    }

    static func encode(_ image: PixelBuffer, quality: Int, metadata: ImageMetadata = ImageMetadata()) throws(ImageDecodeError) -> Data {
        try checkAvailable()
        var encoded = tc_encoded()
        let status = try metadata.withGlue(grey: false) { glue in
            image.pixels.withUnsafeBufferPointer { pixels in
                tc_heif_encode(pixels.baseAddress, Int32(image.width), Int32(image.height), image.rowBytes,
                               Int32(image.channels), Int32(quality), glue, &encoded)
            }
        }
        return try takeEncoded(&encoded, status: status)
    }

    /// What libheif and x265 hold while encoding `width` × `height`, beside the caller's pixels: libheif's RGB(A)
    /// copy and its YCbCr conversion, alpha's own encode, and x265's padded picture, reconstruction, lookahead and
    /// per-block analysis buffers. Measured as the peak RSS an encode adds in one process (docs/imagedecode.md,
    /// "HEIC out"): 6.3 MB at 64², 31 MB at 1024², 87 MB at 2048² (q80, RGB); 4:4:4 (q ≥ 90) adds about 8 bytes a pixel
    /// and alpha about 3. 10 MiB and 32 bytes a pixel covers the worst of them (4:4:4 with alpha) at every size.
    static func workingMemory(width: Int, height: Int) -> Int {
        fixedMemory + width * height * bytesPerPixel
    }

    static let fixedMemory = 10 << 20
    static let bytesPerPixel = 32
}
