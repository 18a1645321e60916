import Foundation
import Testing
@testable import ImageDecode

/// JPEG XL through libjxl: imgproxy's test files (bit depths, grey, container), colour, metadata, hostile files.
struct JXLDecodeTests {
    let thumbnailer = Thumbnailer()

    @Test(arguments: [("1-bpp", 400, 400, true, false), ("8-bpp", 400, 400, false, false),
                      ("8-bpp-isobmff", 400, 400, false, false), ("8-bpp-grayscale", 150, 200, true, false),
                      ("16-bpp", 600, 600, false, false), ("16-bpp-grayscale", 1000, 1000, true, false),
                      ("jxl", 924, 1386, false, true)])
    func imgproxyFilesDecode(name: String, width: Int, height: Int, grey: Bool, alpha: Bool) throws {
        let data = try Fixtures.data("jxl/\(name).jxl")
        let info = try ImageDecoder.probe(data)
        #expect(info.format == .jxl && info.width == width && info.height == height)
        #expect(info.isGrey == grey && info.hasAlpha == alpha)
        let image = try ImageDecoder.decode(data)
        #expect(image.width == width && image.channels == (alpha ? 4 : 3))
        if grey { #expect(image.isNeutral) }
    }

    @Test func containerAndBareCodestreamGiveTheSamePixels() throws {
        #expect(try ImageDecoder.decode(Fixtures.data("jxl/8-bpp-isobmff.jxl"))
                == ImageDecoder.decode(Fixtures.data("jxl/8-bpp.jxl")))
    }

    /// 16-bit samples come out as 8-bit (values checked against libvips' jxlload of the same file).
    @Test func sixteenBitBecomesEightBit() throws {
        let image = try ImageDecoder.decode(Fixtures.data("jxl/16-bpp.jxl"))
        for (x, y, expected) in [(0, 0, [2, 2, 255]), (300, 300, [127, 128, 128]), (599, 599, [254, 254, 0])] {
            let pixel = image[x, y]
            #expect(zip(pixel, expected).allSatisfy { abs(Int($0) - $1) <= 2 }, "\(x),\(y): \(pixel)")
        }
    }

    /// Lossless keeps the Adobe RGB profile (converted by LittleCMS like a PNG's); lossy (XYB) is rendered to sRGB by
    /// libjxl. Both match the PNG they were made from, converted to sRGB by our PNG path.
    @Test func colourIsConvertedToSRGB() throws {
        let reference = try ImageDecoder.decode(Fixtures.data("rocket-adobergb.png"))
        func meanDifference(_ image: PixelBuffer) -> Double {
            Double(zip(image.pixels, reference.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(image.pixels.count)
        }
        let lossless = try Fixtures.data("jxl/adobergb-lossless.jxl")
        #expect(try ImageDecoder.probe(lossless).colorProfile != nil)
        #expect(meanDifference(try ImageDecoder.decode(lossless)) < 0.5)
        let lossy = try Fixtures.data("jxl/adobergb-lossy.jxl")
        #expect(try ImageDecoder.probe(lossy).colorProfile == nil)
        #expect(meanDifference(try ImageDecoder.decode(lossy)) < 5)
        let alpha = try ImageDecoder.decode(Fixtures.data("jxl/alpha-adobergb.jxl"))
        let alphaReference = try ImageDecoder.decode(Fixtures.data("rocket-adobergb-alpha.png"))
        #expect(alpha.channels == 4)
        let alphaDifference = stride(from: 3, to: alpha.pixels.count, by: 4)
            .reduce(0) { $0 + abs(Int(alpha.pixels[$1]) - Int(alphaReference.pixels[$1])) }
        #expect(Double(alphaDifference) / Double(alpha.width * alpha.height) < 3)
    }

    /// cjxl's lossless JPEG transcode keeps the Exif (orientation 6) in a brotli-compressed `brob` box while the
    /// codestream says 1, as libjxl, djxl and libvips read it: the pixels are not turned, and a kept Exif says 1.
    @Test func exifOrientationIsResetNotApplied() throws {
        let data = try Fixtures.data("jxl/jpeg-exif-orientation-6.jxl")
        let info = try ImageDecoder.probe(data)
        #expect(info.orientation == .identity && info.width == 180 && info.height == 120)
        let exif = try #require(info.metadata.exif)
        #expect(exif.withUnsafeBytes { EXIF.orientation(tiff: $0) } ?? .identity == .identity)
    }

    @Test func overThePixelBudgetIsRefusedFromTheHeader() throws {
        // 218 bytes that decode to 924 x 1386.
        #expect(throws: ImageDecodeError.tooLarge(width: 924, height: 1386, limit: 1_000_000)) {
            try ImageDecoder.decode(Fixtures.data("jxl/jxl.jxl"), maxPixels: 1_000_000)
        }
    }

    // MARK: Hostile files

    /// A bare codestream: the signature, a SizeHeader, all-default ImageMetadata and transform data, then nothing.
    static func headerOnly(width: UInt64, height: UInt64) -> Data {
        var bits = [Bool]()
        func write(_ value: UInt64, _ count: Int) { for bit in 0..<count { bits.append((value >> UInt64(bit)) & 1 == 1) } }
        write(0, 1)                     // not small
        write(3, 2); write(height - 1, 30)  // U32 selector 3: 1 + u(30)
        write(0, 3)                     // no ratio: the width follows
        write(3, 2); write(width - 1, 30)
        write(1, 1)                     // ImageMetadata all_default (8-bit sRGB)
        write(1, 1)                     // CustomTransformData all_default
        var bytes: [UInt8] = [0xFF, 0x0A]
        for start in stride(from: 0, to: bits.count, by: 8) {
            bytes.append(bits[start..<min(start + 8, bits.count)].enumerated().reduce(0) { $0 | ($1.element ? 1 << $1.offset : 0) })
        }
        return Data(bytes)
    }

    @Test func hugeDeclaredSizesAreRefusedFromTheHeader() throws {
        #expect(throws: ImageDecodeError.tooLarge(width: 100_000, height: 100_000, limit: ImageDecoder.defaultMaxPixels)) {
            try ImageDecoder.decode(Self.headerOnly(width: 100_000, height: 100_000))
        }
        #expect(throws: ImageDecodeError.tooLarge(width: 1 << 30, height: 1 << 30, limit: ImageDecoder.defaultMaxPixels)) {
            try ImageDecoder.decode(Self.headerOnly(width: 1 << 30, height: 1 << 30))
        }
        // Within the limit but with no frame: the header reads, the decode says the file ends early.
        let info = try ImageDecoder.probe(Self.headerOnly(width: 1000, height: 700))
        #expect(info.width == 1000 && info.height == 700)
        #expect(throws: ImageDecodeError.truncated) { try ImageDecoder.decode(Self.headerOnly(width: 1000, height: 700)) }
    }

    @Test func truncatedAndGarbageFilesAreRefused() throws {
        for name in ["8-bpp", "8-bpp-isobmff"] {
            let data = try Fixtures.data("jxl/\(name).jxl")
            for keep in [2, 12, 40, data.count / 3, data.count * 2 / 3, data.count - 1] {
                #expect(throws: ImageDecodeError.self, "\(name) cut to \(keep) bytes") { try ImageDecoder.decode(data.prefix(keep)) }
            }
        }
        // The container signature box, then a box claiming 4 GB and garbage.
        let signature = Data([0, 0, 0, 12]) + Data("JXL \r\n".utf8) + Data([0x87, 0x0A])
        var garbage = signature + Data([0xFF, 0xFF, 0xFF, 0xF0]) + Data("jxlc".utf8) + Data(repeating: 0x5A, count: 64)
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(garbage) }
        garbage = signature + Data([0, 0, 0, 8]) + Data("ftyp".utf8) + Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 91) })
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(garbage) }
        // A bare codestream signature followed by garbage.
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(Data([0xFF, 0x0A]) + Data(repeating: 0xFF, count: 100)) }
    }
    /// `RenderLimits.decodeThreads`: libjxl's worker threads share the groups out, and the pixels are the same
    /// whatever their number, on every fixture and on a lossy 12-group image (with alpha) made here, 768 x 700.
    @Test func pixelsAreTheSameOnAnyNumberOfThreads() throws {
        let noisy = Fixtures.image(width: 768, height: 700, channels: 4) { x, y in
            let noise = UInt8(truncatingIfNeeded: (x &* 7919) ^ (y &* 104_729) ^ (x * y))
            return [UInt8(truncatingIfNeeded: x), noise, UInt8(truncatingIfNeeded: y), UInt8(truncatingIfNeeded: x + y)]
        }
        var inputs = [("made here", try ImageEncoder.encode(noisy, as: .jxl, quality: 80))]
        let root = Fixtures.directory.appendingPathComponent("jxl").path
        for name in try FileManager.default.contentsOfDirectory(atPath: root).sorted() where name.hasSuffix(".jxl") {
            inputs.append((name, try Fixtures.data("jxl/\(name)")))
        }
        for (name, data) in inputs {
            let one = try Fixtures.decodeRows(.data(data), shrink: 1, threads: 1)
            for threads in [2, 3] {
                #expect(try Fixtures.decodeRows(.data(data), shrink: 1, threads: threads) == one, "\(name) on \(threads) threads")
            }
        }
    }

    /// Each worker thread's buffers are counted: a decode on more threads reserves more.
    @Test func workingMemoryCountsTheThreads() throws {
        let data = try Fixtures.data("jxl/16-bpp.jxl")
        try data.withUnsafeBytes { bytes in
            let one = try JXLDecoder(bytes, threads: 1).workingMemory(shrink: 1)
            let two = try JXLDecoder(bytes, threads: 2).workingMemory(shrink: 1)
            #expect(two == one + 2 * JXLDecoder.memoryPerThread)
        }
    }

    /// The thread count reaches the decoder through every input a request reads, an opened one (`OpenedImage`, what
    /// `Thumbnailer` and serve read through) included: the estimate of a thumbnail counts the threads asked for.
    @Test func threadsReachTheDecoderThroughAnOpenedInput() throws {
        let data = try Fixtures.data("jxl/16-bpp.jxl")
        var request = ThumbnailRequest(size: 64)
        let one = try Thumbnailer().workingMemory(for: .data(data), request)
        request.decodeThreads = 2
        let two = try Thumbnailer().workingMemory(for: .data(data), request)
        let opened = try Thumbnailer().workingMemory(for: EncodedImage.data(data).openedOnce(), request)
        #expect(two == one + 2 * JXLDecoder.memoryPerThread)
        #expect(opened == two)
    }
}
