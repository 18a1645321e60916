import Foundation
import Testing
@testable import ImageDecode

@Suite struct DecodeTests {
    /// PngSuite encodes the size in the name: sNN* are NxN, cdf/cdh/cds are 8x32/32x8/8x8.
    static func expectedSize(_ name: String) -> (Int, Int) {
        if name.hasPrefix("s"), let side = Int(name.dropFirst().prefix(2)) { return (side, side) }
        switch name.prefix(4) {
        case "cdfn": return (8, 32)
        case "cdhn": return (32, 8)
        case "cdsn": return (8, 8)
        default: return (32, 32)
        }
    }

    @Test func everyValidPngSuiteFileDecodesToItsSize() throws {
        let names = try Fixtures.pngSuiteNames().filter { !$0.hasPrefix("x") }
        #expect(names.count == 161)
        for name in names {
            let image = try ImageDecoder.decode(Fixtures.data("pngsuite/\(name)"))
            let (width, height) = Self.expectedSize(name)
            #expect(image.width == width && image.height == height, "\(name)")
        }
    }

    @Test func everyCorruptPngSuiteFileIsRefused() throws {
        let names = try Fixtures.pngSuiteNames().filter { $0.hasPrefix("x") }
        #expect(names.count == 14)
        for name in names {
            let data = try Fixtures.data("pngsuite/\(name)")
            let error = #expect(throws: ImageDecodeError.self, "\(name)") { try ImageDecoder.decode(data) }
            switch error {
            case .corrupt, .unrecognizedFormat: break
            default: Issue.record("\(name): unexpected \(String(describing: error))")
            }
        }
    }

    /// Expected values were read once with Pillow 13 (`Image.open(f).convert("RGB" or "RGBA").getpixel`).
    @Test(arguments: [
        ("basn2c08", 5, 7, [255, 255, 26]),
        ("basn2c08", 16, 3, [255, 255, 143]),
        ("basn3p08", 5, 7, [119, 58, 0]),
        ("basn3p08", 31, 31, [255, 254, 255]),
        ("basn6a08", 5, 7, [255, 223, 7, 41]),
        ("basn6a08", 16, 3, [255, 95, 8, 131]),
        ("basi3p04", 16, 3, [119, 255, 0]),
        ("tbbn3p08", 16, 3, [134, 38, 38, 255]),
        ("tbbn3p08", 0, 0, [255, 255, 255, 0]),
        ("basn0g01", 16, 3, [255, 255, 255]),
        ("basn0g04", 5, 7, [34, 34, 34]),
        ("basi4a08", 5, 7, [197, 197, 197, 41]),
        ("s09i3p02", 5, 7, [255, 119, 0]),
    ])
    func pixelValuesMatchPillow(name: String, x: Int, y: Int, expected: [Int]) throws {
        let image = try ImageDecoder.decode(Fixtures.data("pngsuite/\(name).png"))
        #expect(image.channels == expected.count)
        #expect(image[x, y].map(Int.init) == expected)
    }

    /// 16-bit grey: the raw samples were read with Pillow 13 (mode "I;16", which keeps all 16 bits),
    /// e.g. 38400 at (16, 3); libpng's png_set_scale_16 gives (v * 255 + 32895) >> 16 = 149.
    /// basi0g16 is the Adam7-interlaced twin of basn0g16 and must decode identically.
    @Test(arguments: ["basn0g16", "basi0g16"])
    func sixteenBitGreyIsScaledWithRounding(name: String) throws {
        let image = try ImageDecoder.decode(Fixtures.data("pngsuite/\(name).png"))
        #expect(image[5, 7] == [59, 59, 59])
        #expect(image[16, 3] == [149, 149, 149])
        #expect(image[31, 31] == [1, 1, 1])
    }

    @Test func jpegDecodesToItsSize() throws {
        let image = try ImageDecoder.decode(Fixtures.data("testorig.jpg"))
        #expect((image.width, image.height, image.channels) == (227, 149, 3))
        let info = try ImageDecoder.probe(Fixtures.data("testorig.jpg"))
        #expect(info == ImageInfo(format: .jpeg, width: 227, height: 149))
    }

    @Test(arguments: ["testorig.jpg", "pngsuite/basn2c08.png", "pngsuite/basi6a08.png"])
    func truncatedFilesAreRefused(name: String) throws {
        let whole = try Fixtures.data(name)
        for keep in [whole.count / 2, whole.count - 20, whole.count - 2] {
            #expect(throws: ImageDecodeError.truncated, "\(name) cut to \(keep) bytes") {
                try ImageDecoder.decode(whole.prefix(keep))
            }
        }
    }

    @Test func emptyAndForeignDataAreUnrecognized() {
        #expect(throws: ImageDecodeError.unrecognizedFormat) { try ImageDecoder.decode(Data()) }
        #expect(throws: ImageDecodeError.unrecognizedFormat) { try ImageDecoder.decode(Data("BM\u{0}\u{0}%PDF-1.7".utf8)) }
        // A GIF signature with nothing after it is a GIF cut short, not foreign data.
        #expect(throws: ImageDecodeError.truncated) { try ImageDecoder.decode(Data("GIF89a".utf8)) }
    }

    @Test func twelveBitAndLosslessJpegAreUnsupported() {
        for data in [Crafted.jpegHeader(sof: 0xC1, precision: 12, width: 16, height: 16),
                     Crafted.jpegHeader(sof: 0xC3, width: 16, height: 16)] {
            let error = #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(data) }
            guard case .unsupported = error else {
                Issue.record("expected unsupported, got \(String(describing: error))")
                continue
            }
        }
    }

    @Test func pixelBudgetIsCheckedBeforeDecoding() throws {
        let png = Crafted.pngHeader(width: 100_000, height: 100_000)
        let jpeg = Crafted.jpegHeader(width: 60_000, height: 60_000)
        #expect(png.count < 100 && jpeg.count < 100)
        // The headers are readable, so probing works...
        #expect(try ImageDecoder.probe(png).width == 100_000)
        #expect(try ImageDecoder.probe(jpeg).height == 60_000)
        // ...but decoding stops at the budget instead of trying to allocate 10-40 GB.
        #expect(throws: ImageDecodeError.tooLarge(width: 100_000, height: 100_000, limit: 50_000_000)) {
            try Thumbnailer().makeThumbnail(from: png, ThumbnailRequest(size: 256))
        }
        #expect(throws: ImageDecodeError.tooLarge(width: 60_000, height: 60_000, limit: 50_000_000)) {
            try ImageDecoder.decode(jpeg)
        }
        #expect(throws: ImageDecodeError.tooLarge(width: 227, height: 149, limit: 1000)) {
            try Thumbnailer().makeThumbnail(from: Fixtures.data("testorig.jpg"), ThumbnailRequest(size: 64, maxPixels: 1000))
        }
    }

    /// Pillow 13's `convert("RGB")` of these files, read once: pixel (10, 10) and the mean of all
    /// RGB values. jpg-cmyk-2 is Adobe CMYK, pil_sample_cmyk Adobe YCCK (both stored inverted).
    @Test(arguments: [("jpg-cmyk-2.jpg", [255, 255, 255], 251.97), ("pil_sample_cmyk.jpg", [1, 4, 5], 14.35)])
    func cmykConvertsToRGB(name: String, expected: [Int], pillowMean: Double) throws {
        let image = try ImageDecoder.decode(Fixtures.data(name))
        #expect(image.channels == 3)
        let got = image[10, 10].map(Int.init)
        #expect(zip(got, expected).allSatisfy { abs($0 - $1) <= 3 }, "got \(got)")
        // Not an inverted negative or wrong ink formula: overall brightness matches Pillow's.
        let mean = Double(image.pixels.reduce(0) { $0 + Int($1) }) / Double(image.pixels.count)
        #expect(abs(mean - pillowMean) < 2, "mean \(mean)")
    }

    @Test func formatSniffing() {
        #expect(ImageFormat.sniff([0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
        #expect(ImageFormat.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D]) == .png)
        #expect(ImageFormat.sniff([0x47, 0x49, 0x46]) == nil)
        #expect(ImageFormat.sniff([UInt8]()) == nil)
    }
}
