import Foundation

/// The records of a GIF file, walked block by block (GIF89a: the screen, extensions, images and their sub-blocks),
/// so a test reads what a writer put there: each frame's disposal and delay, and the NETSCAPE2.0 loop count.
struct GIFRecords {
    /// One a frame, from its graphic control extension (0 when it has none).
    var disposals = [Int]()
    /// Hundredths of a second, one a frame.
    var delays = [Int]()
    /// nil: no NETSCAPE2.0 extension.
    var loop: Int?

    init(_ data: Data) {
        let bytes = [UInt8](data)
        guard bytes.count >= 13 else { return }
        var at = 13 + (bytes[10] & 0x80 != 0 ? 3 << (Int(bytes[10] & 7) + 1) : 0)
        var control: (disposal: Int, delay: Int)?
        func skipSubBlocks() {
            while at < bytes.count, bytes[at] != 0 { at += Int(bytes[at]) + 1 }
            at += 1
        }
        while at < bytes.count {
            switch bytes[at] {
            case 0x21 where at + 1 < bytes.count:
                let label = bytes[at + 1]
                if label == 0xF9, at + 6 < bytes.count {
                    control = (Int(bytes[at + 3] >> 2) & 7, Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8)
                } else if label == 0xFF, at + 18 < bytes.count, bytes[at + 2] == 11,
                          String(decoding: bytes[(at + 3)..<(at + 14)], as: UTF8.self) == "NETSCAPE2.0" {
                    loop = Int(bytes[at + 16]) | Int(bytes[at + 17]) << 8
                }
                at += 2
                skipSubBlocks()
            case 0x2C where at + 9 < bytes.count:
                disposals.append(control?.disposal ?? 0)
                delays.append(control?.delay ?? 0)
                control = nil
                let flags = bytes[at + 9]
                at += 10 + (flags & 0x80 != 0 ? 3 << (Int(flags & 7) + 1) : 0) + 1  // the LZW minimum code size
                skipSubBlocks()
            default:
                return  // the trailer, or a broken file
            }
        }
    }
}
