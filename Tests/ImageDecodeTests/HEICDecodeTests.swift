import Foundation
import Testing
@testable import ImageDecode

/// HEIC/HEIF through libheif: transforms, the embedded thumbnail, colour, metadata, and hostile files.
struct HEICDecodeTests {
    let thumbnailer = Thumbnailer()

    @Test func realFileWithExifAndXMP() throws {
        let data = try Fixtures.data("heic/heif.heif")
        let info = try ImageDecoder.probe(data)
        #expect(info.format == .heic && info.width == 640 && info.height == 426 && !info.hasAlpha)
        #expect(info.metadata.exif != nil && info.metadata.xmp != nil)
        let made = try thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 100, format: .png))
        #expect(made.width == 100 && made.height == 67)
    }

    @Test func irotAndImirAreAppliedByLibheifAndNotAgain() throws {
        let plain = try ImageDecoder.decode(Fixtures.data("heic/plain.heic"))
        // irot 1 (a quarter turn anticlockwise) and imir 1 (left-right), patched into heif-enc's output.
        let rotated = try Fixtures.data("heic/irot.heic")
        let info = try ImageDecoder.probe(rotated)
        #expect(info.orientation == .identity && info.width == plain.height && info.height == plain.width)
        #expect(try ImageDecoder.decode(rotated) == Orientation.rotate270.apply(to: plain))
        #expect(try ImageDecoder.decode(Fixtures.data("heic/imir.heic")) == Orientation.flipHorizontal.apply(to: plain))
        let made = try thumbnailer.makeThumbnail(from: rotated, ThumbnailRequest(size: 100, format: .png))
        #expect(made.width < made.height)
    }

    /// heif-enc turns a JPEG with orientation 6 upright and keeps its Exif, still saying 6: the pixels must not be
    /// turned again (libvips removes the tag too), and a kept Exif says 1.
    @Test func exifOrientationIsResetNotApplied() throws {
        let data = try Fixtures.data("heic/exif-orientation-6.heic")
        let tiff = try #require(data.firstRange(of: Data("MM\0*".utf8)) ?? data.firstRange(of: Data("II*\0".utf8)))
        let stored = Array(data[tiff.lowerBound...])
        #expect(stored.withUnsafeBytes { EXIF.orientation(tiff: $0) } == .rotate90)
        let info = try ImageDecoder.probe(data)
        #expect(info.orientation == .identity && info.width == 120 && info.height == 180)
        let exif = try #require(info.metadata.exif)
        #expect(exif.withUnsafeBytes { EXIF.orientation(tiff: $0) } ?? .identity == .identity)
        let made = try thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 90, format: .png))
        #expect(made.width == 60 && made.height == 90)
    }

    @Test func embeddedThumbnailIsUsedWhenLargeEnough() throws {
        let data = try Fixtures.data("heic/thumbnail.heic")
        try data.withUnsafeBytes { bytes in
            let decoder = try HEICDecoder(bytes, maxPixels: ImageDecoder.defaultMaxPixels)
            #expect(decoder.info.width == 227 && decoder.info.height == 149)
            #expect(decoder.workingMemory(shrink: 4) < decoder.workingMemory(shrink: 1))
            let small = try decoder.start(shrink: 4, convertToSRGB: true)
            #expect(small.width == 64 && small.height == 42)
            var rows = 0
            try decoder.readRows { row in
                #expect(row.count == 64 * 3)
                rows += 1
            }
            #expect(rows == 42)
        }
        try data.withUnsafeBytes { bytes in
            let decoder = try HEICDecoder(bytes, maxPixels: ImageDecoder.defaultMaxPixels)
            #expect(try decoder.start(shrink: 2, convertToSRGB: true).width == 227)
        }
        // Through the renderer: a 48 px thumbnail from the 64 px one looks like one from the full image.
        let fromThumbnail = try thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 48, format: .png))
        let full = try thumbnailer.makeThumbnail(from: Fixtures.data("heic/plain.heic"), ThumbnailRequest(size: 48, format: .png))
        #expect(fromThumbnail.width == full.width && fromThumbnail.height == full.height)
        let a = try ImageDecoder.decode(fromThumbnail.data), b = try ImageDecoder.decode(full.data)
        let difference = zip(a.pixels, b.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        #expect(Double(difference) / Double(a.pixels.count) < 12)
    }

    @Test func iccProfileAndAlpha() throws {
        let data = try Fixtures.data("heic/alpha-adobergb.heic")
        let info = try ImageDecoder.probe(data)
        #expect(info.hasAlpha && info.colorProfile?.contains("Adobe") == true)
        let image = try ImageDecoder.decode(data)
        let reference = try ImageDecoder.decode(Fixtures.data("rocket-adobergb-alpha.png"))
        #expect(image.channels == 4 && image.width == reference.width)
        let difference = zip(image.pixels, reference.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        #expect(Double(difference) / Double(image.pixels.count) < 6)
    }

    /// An nclx colr box with Display P3 primaries (made with libheif's encoder API) becomes a profile and is
    /// converted: P3 (230, 50, 61) is (251, 0, 51) in sRGB.
    @Test func nclxPrimariesAreConverted() throws {
        let data = try Fixtures.data("heic/nclx-display-p3.heic")
        #expect(try ImageDecoder.probe(data).colorProfile != nil)
        let converted = try ImageDecoder.decode(data)[10, 30]
        let stored = try ImageDecoder.decode(data, convertToSRGB: false)[10, 30]
        #expect(abs(Int(stored[0]) - 230) <= 3 && abs(Int(stored[1]) - 50) <= 3)
        #expect(converted[0] >= 245 && converted[1] <= 6 && abs(Int(converted[2]) - 51) <= 4)
    }

    @Test func overThePixelBudgetIsRefusedFromTheHeader() throws {
        #expect(throws: ImageDecodeError.tooLarge(width: 640, height: 426, limit: 100_000)) {
            try ImageDecoder.decode(Fixtures.data("heic/heif.heif"), maxPixels: 100_000)
        }
    }

    // MARK: Hostile files (crafted from plain.heic in memory)

    /// Every `ispe` box's width and height replaced.
    static func declaring(width: UInt32, height: UInt32) throws -> Data {
        var data = try Fixtures.data("heic/plain.heic")
        var from = data.startIndex
        while let box = data[from...].firstRange(of: Data("ispe".utf8)) {
            let at = box.upperBound + 4
            for (offset, value) in [(0, width), (4, height)] {
                for byte in 0..<4 { data[at + offset + byte] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(byte))) }
            }
            from = box.upperBound
        }
        return data
    }

    @Test func hugeAndZeroDeclaredSizesAreRefusedBeforeDecoding() throws {
        // Under libheif's per-side limit: our pixel limit refuses it from the header.
        let large = try Self.declaring(width: 20_000, height: 20_000)
        #expect(throws: ImageDecodeError.tooLarge(width: 20_000, height: 20_000, limit: ImageDecoder.defaultMaxPixels)) {
            try ImageDecoder.decode(large)
        }
        // Over it: libheif's own limit (set from ours) refuses it.
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(Self.declaring(width: 60_000, height: 60_000)) }
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(Self.declaring(width: 0, height: 0)) }
        // A declared size that does not match the coded picture is refused, not read past.
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(Self.declaring(width: 400, height: 300)) }
    }

    @Test func gridDeclaringAHugeCanvasIsRefused() throws {
        var data = try Fixtures.data("heic/plain.heic")
        // The primary item becomes a grid whose descriptor (the item's data) declares 256 x 256 tiles making
        // 65535 x 65535 pixels, with no tiles referenced.
        let type = try #require(data.firstRange(of: Data("hvc1".utf8)))
        data.replaceSubrange(type, with: Data("grid".utf8))
        let mdat = try #require(data.firstRange(of: Data("mdat".utf8)))
        data.replaceSubrange(mdat.upperBound..<mdat.upperBound + 8, with: [0, 0, 255, 255, 255, 255, 255, 255])
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(data) }
    }

    /// A damaged file must decode to the same pixels whatever the heap held. libde265 leaves the blocks it cannot
    /// decode as its buffer's old contents (`plain.heic` with three bit flips in its slice data: fixed by
    /// de265_zeroed_pictures.c), and libheif leaves part of its image unwritten when the coded picture is smaller
    /// than the image declared (`irot.heic` with one byte of its SPS changed, so 128 of 227 columns are coded: fixed
    /// by heif_zeroed_planes.cpp). Before the fixes these pixels changed with the heap's contents: earlier requests'
    /// pixels could show through. Found by mutation runs.
    @Test(arguments: [
        ("plain", [(2326, 0x20), (3609, 0x08), (3747, 0x08)]), ("plain", [(765, 0x10), (1737, 0x20), (1941, 0x04)]),
        ("plain", [(1485, 0x01), (4105, 0x02), (4601, 0x10)]), ("plain", [(2947, 0x01), (3358, 0x04), (4625, 0x01)]),
        ("plain", [(1666, 0x02), (3000, 0x08), (4407, 0x04)]), ("plain", [(1062, 0x04), (5666, 0x02), (5928, 0x01)]),
        ("irot", [(311, 0x0D)]),
    ] as [(String, [(Int, UInt8)])])
    func aDamagedPictureDecodesTheSameWhateverTheHeapHeld(file: String, flips: [(Int, UInt8)]) throws {
        var data = try Fixtures.data("heic/\(file).heic")
        for (offset, bit) in flips { data[offset] ^= bit }
        /// Fills then frees blocks of the sizes libde265's picture planes have here (4-96 KB), so its next
        /// allocations are likely to get memory holding `byte`.
        func decode(afterFreeingMemoryFilledWith byte: UInt8) throws -> PixelBuffer {
            let blocks = stride(from: 4096, through: 98_304, by: 1024).map { size in
                let block = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
                block.initializeMemory(as: UInt8.self, repeating: byte, count: size)
                return block
            }
            blocks.reversed().forEach { $0.deallocate() }
            return try ImageDecoder.decode(data)
        }
        let first = try decode(afterFreeingMemoryFilledWith: 0x77)
        for byte: UInt8 in [0x11, 0xE5, 0x3C] {
            #expect(try decode(afterFreeingMemoryFilledWith: byte) == first, "freed memory held \(byte)")
        }
    }

    @Test func truncatedAndGarbageFilesAreRefused() throws {
        let data = try Fixtures.data("heic/heif.heif")
        for keep in [16, 40, data.count / 3, data.count * 2 / 3, data.count - 1] {
            #expect(throws: ImageDecodeError.self, "cut to \(keep) bytes") { try ImageDecoder.decode(data.prefix(keep)) }
        }
        // A valid ftyp followed by a meta box claiming 4 GB, then by garbage boxes.
        let ftyp = Data(data.prefix(Int(data[3]) | Int(data[2]) << 8))
        var garbage = ftyp + Data([0xFF, 0xFF, 0xFF, 0xF0]) + Data("meta".utf8) + Data(repeating: 0xAB, count: 64)
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(garbage) }
        garbage = ftyp + Data([0, 0, 0, 8]) + Data("free".utf8) + Data((0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37) })
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(garbage) }
    }
}
