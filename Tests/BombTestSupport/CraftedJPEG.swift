/// JPEGs of a flat grey image written marker by marker, with one-bit Huffman codes: a 7000x7000 image whose
/// decoder needs 300 MB of coefficients is a 290 KB file, made in milliseconds.
///
/// Every block's DC difference is 0 (code `0`) and, where AC coefficients are coded, the block ends at once
/// (EOB, code `0`): one or two bits a block. Components are sampled 1x1 (4:4:4), as in high-quality files.
public enum CraftedJPEG {
    public enum Layout: Sendable {
        /// One interleaved scan with DC and AC (libjpeg decodes it a row of blocks at a time).
        case baseline
        /// Baseline, but one scan per component: libjpeg must keep every coefficient of the image.
        case multiScan
        /// Progressive (SOF2) with only the DC scan: libjpeg keeps every coefficient of the image.
        case progressive
    }

    /// `components` 3 is YCbCr, 4 is Adobe CMYK.
    public static func flat(width: Int, height: Int, components: Int = 3, layout: Layout) -> [UInt8] {
        precondition(components == 3 || components == 4)
        var out: [UInt8] = [0xFF, 0xD8]
        if components == 4 {
            // APP14 "Adobe", version 100, no flags, transform 0: CMYK stored as is.
            out += segment(0xEE, Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, 0])
        }
        out += segment(0xDB, [0x00] + [UInt8](repeating: 1, count: 64))  // one table of 1s
        var frame: [UInt8] = [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), UInt8(components)]
        for id in 1...components { frame += [UInt8(id), 0x11, 0] }
        out += segment(layout == .progressive ? 0xC2 : 0xC0, frame)
        // A table with a single 1-bit code, for symbol 0: DC "no difference", AC "end of block".
        let oneCode: [UInt8] = [1] + [UInt8](repeating: 0, count: 15) + [0]
        out += segment(0xC4, [0x00] + oneCode)
        if layout != .progressive { out += segment(0xC4, [0x10] + oneCode) }
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        switch layout {
        case .baseline:
            out += scan(components: Array(1...components), spectralEnd: 63) + entropy(bits: blocks * components * 2)
        case .multiScan:
            for id in 1...components { out += scan(components: [id], spectralEnd: 63) + entropy(bits: blocks * 2) }
        case .progressive:
            out += scan(components: Array(1...components), spectralEnd: 0) + entropy(bits: blocks * components)
        }
        return out + [0xFF, 0xD9]
    }

    private static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    private static func scan(components: [Int], spectralEnd: UInt8) -> [UInt8] {
        var payload: [UInt8] = [UInt8(components.count)]
        for id in components { payload += [UInt8(id), 0x00] }
        return segment(0xDA, payload + [0, spectralEnd, 0])
    }

    /// `bits` zero bits, the last byte padded with ones as the standard asks (never a whole 0xFF byte).
    private static func entropy(bits: Int) -> [UInt8] {
        var data = [UInt8](repeating: 0, count: bits / 8)
        let used = bits % 8
        if used > 0 { data.append(UInt8((1 << (8 - used)) - 1)) }
        return data
    }
}
