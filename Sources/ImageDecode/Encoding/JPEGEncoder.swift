import Foundation
import CJpegPngGlue

/// Encodes thumbnails as baseline JPEG with optimized Huffman tables: 4:2:0 YCbCr, or one grey component for a
/// neutral image of a grey source; the metadata given as APP1/APP2 markers.
enum JPEGEncoder {
    static func encode(_ image: PixelBuffer, quality: Int, grey: Bool = false,
                       metadata: ImageMetadata = ImageMetadata()) throws(ImageDecodeError) -> Data {
        let rgb = image.flattened()
        let pixels = grey ? rgb.greyPixels(keepingAlpha: false) : rgb.pixels
        let channels = grey ? 1 : 3
        var encoded = tc_encoded()
        let status = try metadata.withGlue(grey: grey) { glue in
            pixels.withUnsafeBufferPointer { pixels in
                tc_jpeg_encode(pixels.baseAddress, Int32(rgb.width), Int32(rgb.height), rgb.width * channels,
                               Int32(channels), Int32(quality), glue, &encoded)
            }
        }
        return try takeEncoded(&encoded, status: status)
    }
}

/// Moves a C encoder's malloc'd output into `Data`, or turns its failure into an error.
func takeEncoded(_ encoded: inout tc_encoded, status: tc_status) throws(ImageDecodeError) -> Data {
    guard status == TC_OK, let bytes = encoded.data else {
        let message = withUnsafeBytes(of: &encoded.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        tc_free(encoded.data)
        throw .encodeFailed(message.isEmpty ? "encoder failed" : message)
    }
    return Data(bytesNoCopy: bytes, count: encoded.size, deallocator: .custom { pointer, _ in tc_free(pointer) })
}
