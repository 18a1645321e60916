/// Minimal reader for the one EXIF field a thumbnailer needs: Orientation in IFD0.
enum EXIF {
    private static let orientationTag: UInt16 = 0x0112
    private static let shortType: UInt16 = 3

    /// Reads the orientation from a TIFF-structured EXIF block (either byte order).
    /// A leading "Exif\0\0" (as some PNG eXIf writers add) is skipped. Returns nil when the
    /// block is malformed or has no orientation entry; never reads out of bounds.
    static func orientation(tiff input: UnsafeRawBufferPointer) -> Orientation? {
        var bytes = input
        if bytes.count >= 6, Array(bytes[0..<6]) == Array("Exif\0\0".utf8) {
            bytes = UnsafeRawBufferPointer(rebasing: bytes[6...])
        }
        guard bytes.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): bigEndian = false  // "II"
        case (0x4D, 0x4D): bigEndian = true   // "MM"
        default: return nil
        }
        func u16(_ at: Int) -> UInt16? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            let a = UInt16(bytes[at]), b = UInt16(bytes[at + 1])
            return bigEndian ? a << 8 | b : b << 8 | a
        }
        func u32(_ at: Int) -> UInt32? {
            guard let high = u16(bigEndian ? at : at + 2), let low = u16(bigEndian ? at + 2 : at) else { return nil }
            return UInt32(high) << 16 | UInt32(low)
        }
        guard u16(2) == 42, let ifd = u32(4).map(Int.init), let count = u16(ifd) else { return nil }
        for index in 0..<Int(count) {
            let entry = ifd + 2 + index * 12
            guard let tag = u16(entry) else { return nil }
            guard tag == orientationTag else { continue }
            guard u16(entry + 2) == shortType, let value = u16(entry + 8) else { return nil }
            return Orientation(exifValue: Int(value))
        }
        return nil
    }
}
