import Foundation

/// Writes uncompressed, top-down BMP as imgproxy does: 24-bit RGB or 32-bit RGBA behind a V5 header (bit masks
/// B, G, R, A; sRGB colour space), or for a neutral image without alpha 8-bit grey with a 256-entry grey palette
/// behind a BITMAPINFOHEADER. BMP carries no metadata here (imgproxy writes none either).
enum BMPEncoder {
    static let fileHeaderSize = 14
    static let infoHeaderSize = 40
    static let v5HeaderSize = 124

    static func encode(_ image: PixelBuffer, grey: Bool = false) throws(ImageDecodeError) -> Data {
        let greyOut = grey && image.channels == 3
        let bpp = greyOut ? 8 : image.channels * 8
        let stride = (image.width * bpp + 31) / 32 * 4
        let headerSize = greyOut ? infoHeaderSize : v5HeaderSize
        let paletteSize = greyOut ? 256 * 4 : 0
        let pixelOffset = fileHeaderSize + headerSize + paletteSize
        let (imageSize, overflow) = stride.multipliedReportingOverflow(by: image.height)
        guard !overflow, pixelOffset + imageSize <= Int(UInt32.max) else {
            throw .encodeFailed("a \(image.width)x\(image.height) image is too large for BMP (4 GiB at most)")
        }
        var out = Data(capacity: pixelOffset + imageSize)
        func u16(_ value: Int) { out.append(contentsOf: [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]) }
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        out.append(contentsOf: Array("BM".utf8))
        u32(UInt32(pixelOffset + imageSize))
        u32(0)
        u32(UInt32(pixelOffset))
        u32(UInt32(headerSize))
        u32(UInt32(image.width))
        u32(UInt32(bitPattern: Int32(-image.height)))  // negative: rows top to bottom
        u16(1)
        u16(bpp)
        u32(0)  // BI_RGB
        u32(UInt32(imageSize))
        u32(2835)  // 72 dpi
        u32(2835)
        u32(greyOut ? 256 : 0)
        u32(0)
        if !greyOut {
            u32(0x00FF_0000)
            u32(0x0000_FF00)
            u32(0x0000_00FF)
            u32(image.channels == 4 ? 0xFF00_0000 : 0)
            out.append(contentsOf: Array("BGRs".utf8))  // LCS_sRGB, stored little-endian as 'sRGB'
            out.append(contentsOf: [UInt8](repeating: 0, count: 36 + 12))  // endpoints, gamma
            u32(4)  // intent: LCS_GM_IMAGES (perceptual)
            u32(0)
            u32(0)
            u32(0)
        } else {
            for level in 0..<256 { out.append(contentsOf: [UInt8(level), UInt8(level), UInt8(level), 0]) }
        }
        var row = [UInt8](repeating: 0, count: stride)
        image.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<image.height {
                let source = y * image.rowBytes
                for x in 0..<image.width {
                    let at = source + x * image.channels
                    if greyOut {
                        row[x] = pixels[at]
                    } else {
                        let to = x * image.channels
                        row[to] = pixels[at + 2]
                        row[to + 1] = pixels[at + 1]
                        row[to + 2] = pixels[at]
                        if image.channels == 4 { row[to + 3] = pixels[at + 3] }
                    }
                }
                out.append(contentsOf: row)
            }
        }
        return out
    }
}
