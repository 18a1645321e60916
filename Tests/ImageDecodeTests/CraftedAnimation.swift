import Foundation

/// Animated GIFs built byte by byte (on `CraftedGIF`'s literal-code LZW), so a test places each frame, its
/// disposal, delay and transparency exactly, or cuts the file where it wants. Palette: black, red, green, blue.
enum CraftedAnimation {
    struct Frame {
        var rows: [[UInt8]]
        var x = 0
        var y = 0
        var disposal = 0
        /// Hundredths of a second.
        var delay = 10
        var transparentIndex: UInt8? = nil
    }

    static func make(screen: (width: Int, height: Int), frames: [Frame], loop: Int? = 0) -> Data {
        var bytes = Array("GIF89a".utf8)
        bytes += CraftedGIF.le16(screen.width) + CraftedGIF.le16(screen.height) + [0xF1, 0, 0]
        bytes += [0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]
        if let loop { bytes += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1] + CraftedGIF.le16(loop) + [0] }
        for frame in frames {
            let flags = UInt8(frame.disposal << 2) | (frame.transparentIndex == nil ? 0 : 1)
            bytes += [0x21, 0xF9, 4, flags] + CraftedGIF.le16(frame.delay) + [frame.transparentIndex ?? 0, 0]
            let width = frame.rows.first?.count ?? 0
            bytes += [0x2C] + CraftedGIF.le16(frame.x) + CraftedGIF.le16(frame.y) + CraftedGIF.le16(width)
                + CraftedGIF.le16(frame.rows.count) + [0]
            let pixels = frame.rows.flatMap { $0 }.map(Int.init)
            bytes += [2] + CraftedGIF.subBlocks(CraftedGIF.pack(CraftedGIF.literalCodes(pixels), codeSize: 3))
        }
        return Data(bytes + [0x3B])
    }

    /// A `width` x `height` frame of one palette index.
    static func solid(_ index: UInt8, width: Int, height: Int) -> [[UInt8]] {
        Array(repeating: Array(repeating: index, count: width), count: height)
    }
}
