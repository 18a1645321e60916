import Foundation

/// BMP, ICO and TIFF files built in memory for the decoders' tests, so every variant and every hostile header is
/// exactly the bytes the test says.
enum CraftedBMP {
    static func u16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    static func u32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// A BITMAPINFOHEADER (or a V5 header, `headerSize` 124) with `height` as stored (negative: top-down); `extra`
    /// (masks, palette) follows it, then `pixels` (already padded by the caller).
    static func make(width: Int, height: Int, bpp: Int, compression: Int = 0, colorsUsed: Int = 0,
                     headerSize: Int = 40, masks: [Int] = [], extra: [UInt8] = [], pixels: [UInt8],
                     declaredOffset: Int? = nil) -> Data {
        var header = u32(headerSize) + u32(width) + u32(height) + u16(1) + u16(bpp) + u32(compression)
            + u32(pixels.count) + u32(2835) + u32(2835) + u32(colorsUsed) + u32(0)
        if headerSize > 40 {
            var rest = masks.flatMap(u32)
            rest += [UInt8](repeating: 0, count: max(0, headerSize - 40 - rest.count))
            header += rest.prefix(headerSize - 40)
        }
        let offset = declaredOffset ?? 14 + header.count + extra.count
        let file = Array("BM".utf8) + u32(14 + header.count + extra.count + pixels.count) + u32(0) + u32(offset)
        return Data(file + header + extra + pixels)
    }

    /// A palette of BGR0 entries from RGB triples.
    static func palette(_ colours: [[UInt8]]) -> [UInt8] {
        colours.flatMap { [$0[2], $0[1], $0[0], 0] }
    }

    /// An ICO directory over `entries` (each one's data, with the size the directory claims).
    static func icon(_ entries: [(width: Int, height: Int, bpp: Int, data: [UInt8])], offsets: [Int]? = nil) -> Data {
        var out = u16(0) + u16(1) + u16(entries.count)
        var offset = 6 + 16 * entries.count
        var body: [UInt8] = []
        for (index, entry) in entries.enumerated() {
            out += [UInt8(entry.width % 256), UInt8(entry.height % 256), 0, 0] + u16(1) + u16(entry.bpp)
                + u32(entry.data.count) + u32(offsets?[index] ?? offset)
            offset += entry.data.count
            body += entry.data
        }
        return Data(out + body)
    }

    /// The DIB of an icon entry: a BITMAPINFOHEADER whose height counts the AND mask, the palette, XOR rows and
    /// the AND mask (rows bottom-up, as icons are).
    static func iconDIB(width: Int, height: Int, bpp: Int, palette: [UInt8] = [], xor: [UInt8], and: [UInt8]) -> [UInt8] {
        u32(40) + u32(width) + u32(height * 2) + u16(1) + u16(bpp) + u32(0) + u32(xor.count + and.count)
            + u32(0) + u32(0) + u32(0) + u32(0) + palette + xor + and
    }

    /// A little-endian TIFF with one strip of 8-bit samples and the given extra entries; `entries` override the
    /// defaults by tag. Entries are (tag, type, count, value-or-offset).
    static func tiff(width: Int, height: Int, samples: Int = 3, photometric: Int = 2, compression: Int = 1,
                     pixels: [UInt8], override: [Int: (type: Int, count: Int, value: Int)] = [:],
                     nextIFD: Int = 0) -> Data {
        let dataOffset = 8
        let ifdOffset = dataOffset + pixels.count + (pixels.count % 2)
        var tags: [Int: (type: Int, count: Int, value: Int)] = [
            256: (4, 1, width), 257: (4, 1, height), 258: (3, 1, 8), 259: (3, 1, compression),
            262: (3, 1, photometric), 273: (4, 1, dataOffset), 277: (3, 1, samples), 278: (4, 1, height),
            279: (4, 1, pixels.count),
        ]
        for (tag, entry) in override { tags[tag] = entry }
        if samples > 1 && override[258] == nil {
            // BitsPerSample for several samples is an array: it points at 8,8,8… after the IFD.
            tags[258] = (3, samples, ifdOffset + 2 + 12 * tags.count + 4)
        }
        let sorted = tags.sorted { $0.key < $1.key }
        var ifd = u16(sorted.count)
        for (tag, entry) in sorted {
            ifd += u16(tag) + u16(entry.type) + u32(entry.count)
            ifd += entry.type == 3 && entry.count == 1 ? u16(entry.value) + u16(0) : u32(entry.value)
        }
        ifd += u32(nextIFD)
        let bits = samples > 1 ? (0..<samples).flatMap { _ in u16(8) } : []
        return Data(Array("II".utf8) + u16(42) + u32(ifdOffset) + pixels + (pixels.count % 2 == 1 ? [0] : []) + ifd + bits)
    }
}
