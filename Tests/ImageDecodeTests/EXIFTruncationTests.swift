import Testing
@testable import ImageDecode

/// A source's EXIF is untrusted: every prefix of a valid block (an IFD cut anywhere, its value fields included) is
/// read, rewritten and filtered without reading or writing past its end (a cut entry once crashed the server when
/// the orientation was reset for `sm:0`).
@Suite struct EXIFTruncationTests {
    /// Little-endian: IFD0 with Orientation 6 (inline SHORT) and Copyright "(c) Alice" (10 bytes at offset 38).
    static let block: [UInt8] = {
        var out: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 2, 0]
        out += [0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0]
        out += [0x98, 0x82, 2, 0, 10, 0, 0, 0, 38, 0, 0, 0]
        out += [0, 0, 0, 0]  // no next IFD
        out += Array("(c) Alice".utf8) + [0]
        return out
    }()

    @Test func theWholeBlockReadsAndRewrites() {
        let orientation = Self.block.withUnsafeBytes { EXIF.orientation(tiff: $0) }
        #expect(orientation == Orientation(exifValue: 6))
        let reset = EXIF.resettingOrientation(Self.block)
        #expect(reset.withUnsafeBytes { EXIF.orientation(tiff: $0) } == Orientation(exifValue: 1))
        #expect(EXIF.copyrightOnly(Self.block) != nil)
    }

    @Test func everyPrefixIsReadWithoutGoingPastItsEnd() {
        for length in 0..<Self.block.count {
            let cut = Array(Self.block.prefix(length))
            _ = cut.withUnsafeBytes { EXIF.orientation(tiff: $0) }
            let reset = EXIF.resettingOrientation(cut)
            #expect(reset.count == cut.count, "a rewrite keeps the block's length (cut at \(length))")
            _ = EXIF.copyrightOnly(cut)
        }
        // Cut inside the orientation entry's value field (the case that crashed): unchanged, not rewritten.
        let inValue = Array(Self.block.prefix(10 + 9))
        #expect(EXIF.resettingOrientation(inValue) == inValue)
    }
}
