/// Minimal EXIF handling: the Orientation a thumbnailer reads, and the two rewrites an output needs (orientation
/// reset to 1, and the IFD0 copyright fields alone). Never reads out of bounds; a malformed block gives nil.
enum EXIF {
    private static let orientationTag: UInt16 = 0x0112
    private static let artistTag: UInt16 = 0x013B
    private static let copyrightTag: UInt16 = 0x8298
    private static let shortType: UInt16 = 3
    private static let asciiType: UInt16 = 2

    /// A TIFF block's byte order and bounds-checked reads.
    private struct TIFF {
        let bytes: [UInt8]
        let bigEndian: Bool

        /// Nil unless `bytes` starts with a TIFF header ("II*\0" or "MM\0*"); a leading "Exif\0\0" is skipped.
        init?(_ input: [UInt8]) {
            var bytes = input
            if bytes.starts(with: Array("Exif\0\0".utf8)) { bytes.removeFirst(6) }
            guard bytes.count >= 8 else { return nil }
            switch (bytes[0], bytes[1]) {
            case (0x49, 0x49): bigEndian = false  // "II"
            case (0x4D, 0x4D): bigEndian = true   // "MM"
            default: return nil
            }
            self.bytes = bytes
            guard u16(2) == 42 else { return nil }
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

        /// IFD0's entries: each entry's offset, tag, type and count; nil when the directory runs out of the block.
        func ifd0() -> [(at: Int, tag: UInt16, type: UInt16, count: Int)]? {
            guard let ifd = u32(4).map(Int.init), let count = u16(ifd) else { return nil }
            var entries: [(at: Int, tag: UInt16, type: UInt16, count: Int)] = []
            for index in 0..<Int(count) {
                let at = ifd + 2 + index * 12
                // The whole 12-byte entry, its value field too: callers read and write `at + 8 ..< at + 12`.
                guard at + 12 <= bytes.count, let tag = u16(at), let type = u16(at + 2), let count = u32(at + 4) else { return nil }
                entries.append((at, tag, type, Int(count)))
            }
            return entries
        }

        /// An ASCII entry's bytes (inline when 4 or fewer, else at its offset), without trailing NULs.
        func ascii(at entry: Int, count: Int) -> [UInt8]? {
            let start = count <= 4 ? entry + 8 : u32(entry + 8).map(Int.init) ?? -1
            guard start >= 0, count >= 0, start + count <= bytes.count else { return nil }
            var value = Array(bytes[start..<start + count])
            while value.last == 0 { value.removeLast() }
            return value
        }
    }

    /// Reads the orientation from a TIFF-structured EXIF block (either byte order).
    /// A leading "Exif\0\0" (as some PNG eXIf writers add) is skipped. Returns nil when the
    /// block is malformed or has no orientation entry.
    static func orientation(tiff input: UnsafeRawBufferPointer) -> Orientation? {
        guard let tiff = TIFF(Array(input)), let entries = tiff.ifd0(),
              let entry = entries.first(where: { $0.tag == orientationTag }) else { return nil }
        guard entry.type == shortType, let value = tiff.u16(entry.at + 8) else { return nil }
        return Orientation(exifValue: Int(value))
    }

    /// `exif` with IFD0's Orientation set to 1 (top-left), for pixels already turned upright; unchanged without one.
    static func resettingOrientation(_ exif: [UInt8]) -> [UInt8] {
        guard let tiff = TIFF(exif), let entries = tiff.ifd0(),
              let entry = entries.first(where: { $0.tag == orientationTag && $0.type == shortType }) else { return exif }
        var bytes = tiff.bytes
        bytes[entry.at + 8] = tiff.bigEndian ? 0 : 1
        bytes[entry.at + 9] = tiff.bigEndian ? 1 : 0
        return bytes
    }

    /// A new EXIF block with only IFD0's Artist and Copyright (what libvips' strip keeps for imgproxy's
    /// `keep_copyright`); nil when the source has neither.
    static func copyrightOnly(_ exif: [UInt8]) -> [UInt8]? {
        guard let tiff = TIFF(exif), let entries = tiff.ifd0() else { return nil }
        func value(_ tag: UInt16) -> [UInt8]? {
            entries.first { $0.tag == tag && $0.type == asciiType }.flatMap { tiff.ascii(at: $0.at, count: $0.count) }
        }
        return copyrightBlock(artist: value(artistTag), copyright: value(copyrightTag))
    }

    /// A little-endian EXIF block whose IFD0 holds Artist and Copyright (ASCII, NUL added); nil when both are nil.
    static func copyrightBlock(artist: [UInt8]?, copyright: [UInt8]?) -> [UInt8]? {
        let kept: [(tag: UInt16, value: [UInt8])] = [(artistTag, artist), (copyrightTag, copyright)].compactMap { tag, value in
            value.map { (tag, $0 + [0]) }
        }
        guard !kept.isEmpty else { return nil }
        var out: [UInt8] = [0x49, 0x49, 42, 0]
        func append32(_ value: Int) { out += (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        func append16(_ value: Int) { out += [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] }
        append32(8)
        append16(kept.count)
        // Values after the directory (2 + 12 per entry) and its next-IFD offset (4).
        let valuesStart = 8 + 2 + kept.count * 12 + 4
        var values: [UInt8] = []
        for (tag, value) in kept {
            append16(Int(tag)); append16(Int(asciiType)); append32(value.count)
            if value.count <= 4 {
                out += value + [UInt8](repeating: 0, count: 4 - value.count)
            } else {
                append32(valuesStart + values.count)
                values += value
                if value.count % 2 == 1 { values.append(0) }  // TIFF values start on a word boundary
            }
        }
        append32(0)
        return out + values
    }

    /// IFD0's Copyright and Artist, for tests and inspection (nil when absent).
    static func copyright(_ exif: [UInt8]) -> (artist: String?, copyright: String?) {
        guard let tiff = TIFF(exif), let entries = tiff.ifd0() else { return (nil, nil) }
        func text(_ tag: UInt16) -> String? {
            entries.first { $0.tag == tag && $0.type == asciiType }
                .flatMap { tiff.ascii(at: $0.at, count: $0.count) }.map { String(decoding: $0, as: UTF8.self) }
        }
        return (text(artistTag), text(copyrightTag))
    }
}
