import Foundation

/// Builds tiny GIFs whose LZW stream is written code by code, so tests can place an invalid code or cut the
/// data exactly where they want. Pixels are sent as literal codes with a clear code after every two, which
/// keeps the code size at its minimum (every decoder must accept this).
enum CraftedGIF {
    /// A GIF with a 4-colour global table (black, red, green, blue), one frame covering the screen.
    /// `rows` are palette indices (0-3), top to bottom in display order.
    static func make(rows: [[UInt8]], interlaced: Bool = false, transparentIndex: UInt8? = nil,
                     screen: (width: Int, height: Int)? = nil, codes: [Int]? = nil) -> Data {
        let width = rows.first?.count ?? 0, height = rows.count
        let screen = screen ?? (width, height)
        var bytes = Array("GIF89a".utf8)
        bytes += le16(screen.width) + le16(screen.height) + [0xF1, 0, 0]  // global table, 2 bits per entry
        bytes += [0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]
        if let transparentIndex { bytes += [0x21, 0xF9, 4, 0x01, 0, 0, transparentIndex, 0] }
        bytes += [0x2C] + le16(0) + le16(0) + le16(width) + le16(height) + [interlaced ? 0x40 : 0]
        let order = interlaced ? interlacedOrder(height) : Array(0..<height)
        let pixels = order.flatMap { rows[$0] }.map(Int.init)
        bytes += [2] + subBlocks(pack(codes ?? literalCodes(pixels), codeSize: 3)) + [0x3B]
        return Data(bytes)
    }

    /// clear, a, b, clear, c, d, ..., end: with min code size 2 the table never reaches 8 entries.
    static func literalCodes(_ pixels: [Int]) -> [Int] {
        var codes: [Int] = []
        for (i, pixel) in pixels.enumerated() {
            if i % 2 == 0 { codes.append(4) }
            codes.append(pixel)
        }
        return codes + [5]
    }

    static func interlacedOrder(_ height: Int) -> [Int] {
        [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { start, step in Array(stride(from: start, to: height, by: step)) }
    }

    static func pack(_ codes: [Int], codeSize: Int) -> [UInt8] {
        var out: [UInt8] = [], bits = 0, count = 0
        for code in codes {
            bits |= code << count
            count += codeSize
            while count >= 8 {
                out.append(UInt8(bits & 0xFF))
                bits >>= 8
                count -= 8
            }
        }
        if count > 0 { out.append(UInt8(bits & 0xFF)) }
        return out
    }

    static func subBlocks(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < data.count {
            let n = min(255, data.count - index)
            out += [UInt8(n)] + data[index..<index + n]
            index += n
        }
        return out + [0]
    }

    static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
}
