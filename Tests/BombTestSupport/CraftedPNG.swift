import CZlibTestSupport
import Foundation

/// PNGs built chunk by chunk in memory: resource bombs (text chunks that inflate to gigabytes, compressed data
/// behind the image, huge interlaced frames) cost a few hundred kilobytes this way instead of a fixture.
public enum CraftedPNG {
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Colour types with 8-bit samples.
    public enum ColorType: UInt8, Sendable {
        case rgb = 2
        case rgba = 6

        public var bytesPerPixel: Int { self == .rgb ? 3 : 4 }
    }

    /// One chunk: length, type, data, CRC.
    public static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        precondition(typeBytes.count == 4, "chunk types have 4 letters")
        var crcInput = typeBytes + data
        let crc = crcInput.withUnsafeMutableBufferPointer { tczt_crc32(0, $0.baseAddress, $0.count) }
        return bigEndian(UInt32(data.count)) + typeBytes + data + bigEndian(crc)
    }

    /// The chunks of `png` (type and data), after the signature.
    public static func chunks(of png: [UInt8]) -> [(type: String, data: [UInt8])] {
        var chunks: [(String, [UInt8])] = []
        var at = signature.count
        while at + 12 <= png.count {
            let length = Int(png[at]) << 24 | Int(png[at + 1]) << 16 | Int(png[at + 2]) << 8 | Int(png[at + 3])
            let type = String(decoding: png[at + 4..<at + 8], as: UTF8.self)
            chunks.append((type, Array(png[at + 8..<at + 8 + length])))
            at += 12 + length
        }
        return chunks
    }

    /// `png` with `before` inserted ahead of its first IDAT and `after` ahead of its IEND.
    public static func inserting(_ before: [[UInt8]], _ after: [[UInt8]] = [], into png: [UInt8]) -> [UInt8] {
        var out = signature
        var insertedBefore = false
        for (type, data) in chunks(of: png) {
            if type == "IDAT" && !insertedBefore {
                out += before.joined()
                insertedBefore = true
            }
            if type == "IEND" { out += after.joined() }
            out += chunk(type, data)
        }
        return out
    }

    /// The zlib stream of `data` then `zeros` zero bytes (the zeros are streamed, never held).
    public static func deflate(_ data: [UInt8] = [], zeros: Int = 0) -> [UInt8] {
        deflate(data, repeating: 0, count: zeros)
    }

    /// The zlib stream of `data` then `count` copies of `byte` (streamed, never held).
    public static func deflate(_ data: [UInt8] = [], repeating byte: UInt8, count: Int) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let ok = data.withUnsafeBufferPointer { tczt_deflate($0.baseAddress, $0.count, byte, UInt64(count), &output, &length) }
        precondition(ok != 0, "zlib failed")
        defer { free(output) }
        return Array(UnsafeBufferPointer(start: output, count: length))
    }

    /// Bytes of filtered image data (a filter byte per row, per Adam7 pass when interlaced).
    public static func rawSize(width: Int, height: Int, colorType: ColorType, interlaced: Bool) -> Int {
        let passes = interlaced
            ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            : [(0, 0, 1, 1)]
        return passes.reduce(0) { total, pass in
            let columns = width > pass.0 ? (width - pass.0 + pass.2 - 1) / pass.2 : 0
            let rows = height > pass.1 ? (height - pass.1 + pass.3 - 1) / pass.3 : 0
            return total + (columns == 0 ? 0 : rows * (1 + columns * colorType.bytesPerPixel))
        }
    }

    /// An all-zero image (black; transparent with alpha): its filtered data is all zeros, so even a huge one
    /// compresses about 1000 to 1. `excessZeros` more zero bytes follow the image data inside the stream;
    /// `before` and `after` chunks go ahead of the IDAT and the IEND.
    public static func blank(width: Int, height: Int, colorType: ColorType = .rgb, interlaced: Bool = false,
                             excessZeros: Int = 0, before: [[UInt8]] = [], after: [[UInt8]] = []) -> [UInt8] {
        let raw = rawSize(width: width, height: height, colorType: colorType, interlaced: interlaced)
        return image(width: width, height: height, colorType: colorType, interlaced: interlaced,
                     idat: deflate(zeros: raw + excessZeros), before: before, after: after)
    }

    /// A non-interlaced image of the given filtered rows (each a filter byte, then the pixels), compressed.
    public static func image(width: Int, height: Int, colorType: ColorType, filtered: [UInt8]) -> [UInt8] {
        image(width: width, height: height, colorType: colorType, interlaced: false, idat: deflate(filtered))
    }

    static func image(width: Int, height: Int, colorType: ColorType, interlaced: Bool, idat: [UInt8],
                      before: [[UInt8]] = [], after: [[UInt8]] = []) -> [UInt8] {
        let header = bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, colorType.rawValue, 0, 0, interlaced ? 1 : 0]
        return signature + chunk("IHDR", header) + before.joined() + chunk("IDAT", idat) + after.joined() + chunk("IEND", [])
    }

    /// A zTXt chunk ("Comment", method 0) holding `compressed` text.
    public static func zTXt(compressed: [UInt8]) -> [UInt8] {
        chunk("zTXt", Array("Comment".utf8) + [0, 0] + compressed)
    }

    /// A compressed iTXt chunk (keyword, compression flag 1, method 0, empty language and translated keyword).
    public static func iTXt(compressed: [UInt8]) -> [UInt8] {
        chunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 1, 0, 0, 0] + compressed)
    }

    /// An iCCP chunk holding `compressed` (a zlib stream) as its profile.
    public static func iCCP(compressed: [UInt8]) -> [UInt8] {
        chunk("iCCP", Array("ICC".utf8) + [0, 0] + compressed)
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
