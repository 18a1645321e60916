import BombTestSupport
import Foundation
import Testing
@testable import ImageDecode

/// Issue 14, B5: memory a decode needs beyond its pixels. Progressive and multi-scan JPEGs make libjpeg keep
/// every coefficient of the image (2 bytes a sample, whatever the thumbnail's size), an interlaced PNG the
/// whole frame. `Thumbnailer.workingMemory` estimates that from the header, and a decode over
/// `maxDecodeMemory` is refused with `overMemoryBudget` before anything is allocated.
struct DecodeMemoryTests {
    static let thumbnailer = Thumbnailer()

    static func estimate(_ bytes: [UInt8], size: Int = 256, limit: Int = .max) throws -> Int {
        try thumbnailer.workingMemory(for: .data(Data(bytes)), ThumbnailRequest(size: size, maxDecodeMemory: limit))
    }

    @Test func wholeImageJPEGsAreEstimatedWithTheirCoefficients() throws {
        // 7000x7000, three components at 1x1: 875 x 875 blocks of 128 bytes each.
        let coefficients = 875 * 875 * 128 * 3
        let baseline = try Self.estimate(CraftedJPEG.flat(width: 7000, height: 7000, layout: .baseline))
        let progressive = try Self.estimate(CraftedJPEG.flat(width: 7000, height: 7000, layout: .progressive))
        let multiScan = try Self.estimate(CraftedJPEG.flat(width: 7000, height: 7000, layout: .multiScan))
        #expect(multiScan - baseline == coefficients)
        // Decoded at 1/8 for a 256 thumbnail, a progressive file keeps a block's DC and which of its other
        // coefficients are nonzero (10 bytes), and a window of 5 block rows of whole blocks a component.
        #expect(progressive - baseline == 875 * 875 * 10 * 3 + 5 * 875 * 128 * 3)
        // Decoded whole (a thumbnail under twice the size), it keeps every block whole.
        let wholeBaseline = try Self.estimate(CraftedJPEG.flat(width: 7000, height: 7000, layout: .baseline), size: 4000)
        let wholeProgressive = try Self.estimate(CraftedJPEG.flat(width: 7000, height: 7000, layout: .progressive), size: 4000)
        #expect(wholeProgressive - wholeBaseline == coefficients)
        // A baseline file needs little whatever its size.
        #expect(baseline < 8 << 20, "\(baseline)")
        let cmyk = try Self.estimate(CraftedJPEG.flat(width: 7000, height: 7000, components: 4, layout: .progressive))
        #expect(cmyk - progressive >= 875 * 875 * 10)
    }

    @Test func interlacedPNGsAreEstimatedWithTheirFrame() throws {
        let plain = try Self.estimate(CraftedPNG.blank(width: 2000, height: 1500, colorType: .rgba))
        let interlaced = try Self.estimate(CraftedPNG.blank(width: 2000, height: 1500, colorType: .rgba, interlaced: true))
        #expect(interlaced - plain == 2000 * 4 * (1500 - 1))  // the frame, less the one row a plain image needs
        #expect(plain < 4 << 20, "\(plain)")
    }

    @Test func theOutputCountsToo() throws {
        let source = CraftedJPEG.flat(width: 4000, height: 4000, layout: .baseline)
        let small = try Self.estimate(source, size: 64)
        let large = try Self.estimate(source, size: 4000)
        // At full size the image read straight upright and the encoder's buffer (3 + 4 bytes a pixel), at least;
        // the thumbnail's resized pixels, their sRGB and upright copies and its encoder's buffer (3 × 3 + 4).
        #expect(large - small >= 4000 * 4000 * (3 + 4) - 64 * 64 * (3 * 3 + 4))
    }

    @Test func aDecodeOverTheLimitIsRefusedFromTheHeader() throws {
        // A progressive file decoded whole (at 1/8 for 256 its compact coefficients fit in 25 MB).
        let bomb = CraftedJPEG.flat(width: 7000, height: 7000, layout: .progressive)
        #expect(try Self.estimate(bomb) < 32 << 20)
        let needed = try Self.estimate(bomb, size: 4000)
        #expect(needed > ThumbnailRequest.defaultMaxDecodeMemory)
        let error = #expect(throws: ImageDecodeError.self) {
            try Self.thumbnailer.makeThumbnail(from: Data(bomb), ThumbnailRequest(size: 4000))
        }
        #expect(error == .overMemoryBudget(needed: needed, limit: ThumbnailRequest.defaultMaxDecodeMemory))
        #expect(error?.description.contains("--max-decode-memory") == true)
        #expect(throws: ImageDecodeError.overMemoryBudget(needed: needed, limit: 1 << 20)) {
            try Self.estimate(bomb, size: 4000, limit: 1 << 20)
        }
        // The same image in a baseline file is fine.
        let thumbnail = try Self.thumbnailer.makeThumbnail(
            from: Data(CraftedJPEG.flat(width: 7000, height: 7000, layout: .baseline)), ThumbnailRequest(size: 256))
        #expect((thumbnail.width, thumbnail.height) == (256, 256))
    }

    @Test func theLimitIsExactAndAllowsWhatFits() throws {
        for bytes in [CraftedJPEG.flat(width: 1200, height: 800, layout: .progressive),
                      CraftedJPEG.flat(width: 1200, height: 800, components: 4, layout: .multiScan),
                      CraftedPNG.blank(width: 1200, height: 800, interlaced: true)] {
            let needed = try Self.estimate(bytes, size: 100)
            let fits = try Self.thumbnailer.makeThumbnail(from: Data(bytes), ThumbnailRequest(size: 100, maxDecodeMemory: needed))
            #expect((fits.width, fits.height) == (100, 67))
            #expect(throws: ImageDecodeError.overMemoryBudget(needed: needed, limit: needed - 1)) {
                try Self.thumbnailer.makeThumbnail(from: Data(bytes), ThumbnailRequest(size: 100, maxDecodeMemory: needed - 1))
            }
        }
    }

    /// libjpeg's own limit (`max_memory_to_use`) stands behind the estimate: started without the estimate's
    /// check, a decoder given less than its coefficients fails with `overMemoryBudget`, not a crash or a
    /// partial image.
    @Test func libjpegEnforcesTheLimitItself() throws {
        let bomb = Data(CraftedJPEG.flat(width: 2000, height: 2000, layout: .progressive))
        let error = #expect(throws: ImageDecodeError.self) {
            try ImageDecoder.withDecoder(for: .data(bomb), maxPixels: .max, maxMemory: 1 << 20) { decoder throws(ImageDecodeError) in
                _ = try decoder.start(shrink: 1, convertToSRGB: true)
            }
        }
        guard case .overMemoryBudget(let needed, let limit) = error else {
            Issue.record("expected overMemoryBudget, got \(String(describing: error))")
            return
        }
        #expect(limit == 1 << 20 && needed > limit)
    }
}

/// The bombs of the issue, fed to the `thumbcache` executable in a child capped at 1 GiB of address space:
/// each is refused (exit 1 for `thumbnail`, 6 for `get`) with the typed message, and the child stays small.
/// Before the fix each was decoded, at 200 to 400 MB. An interlaced PNG within the default pixel budget
/// (50 MP, 200 MB as RGBA) fits the default 256 MiB, so it is refused under a lower limit. The progressive
/// ones are asked for at a size decoded whole: at 1/8 (256) their compact coefficients take 25-33 MB.
@Suite(.serialized) struct DecodeMemoryBombTests {
    static let bombs: [(name: String, bytes: [UInt8], limit: String?, size: String)] = [
        ("progressive.jpg", CraftedJPEG.flat(width: 7000, height: 7000, layout: .progressive), nil, "4000"),
        ("progressive-cmyk.jpg", CraftedJPEG.flat(width: 7000, height: 7000, components: 4, layout: .progressive), nil, "4000"),
        ("multiscan.jpg", CraftedJPEG.flat(width: 7000, height: 7000, layout: .multiScan), nil, "256"),
        ("adam7.png", CraftedPNG.blank(width: 8000, height: 6000, colorType: .rgba, interlaced: true), "128MiB", "256"),
    ]

    @Test func eachBombIsRefusedAndTheChildStaysSmall() throws {
        try #require(CappedProcess.available, "capped-run and thumbcache must be built beside the tests")
        let directory = try ThumbcacheChild.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, bytes, limit, size) in Self.bombs {
            let input = directory.appendingPathComponent(name)
            try Data(bytes).write(to: input)
            let options = limit.map { ["--max-decode-memory", $0] } ?? []
            let thumbnail = try CappedProcess.thumbcache(
                ["thumbnail", input.path, "--size", size, "-o", directory.appendingPathComponent("out.jpg").path] + options)
            let shown = limit == nil ? "256.0 MiB" : "128.0 MiB"
            #expect(thumbnail.status == 1 && thumbnail.stderr.contains("above the limit of \(shown)"), "\(name): \(thumbnail)")
            #expect(thumbnail.peakBytes < 100 << 20, "\(name): \(thumbnail)")
            let get = try CappedProcess.thumbcache(
                ["get", input.path, "--size", size, "--cache-dir", directory.appendingPathComponent("cache").path,
                 "-o", directory.appendingPathComponent("got.jpg").path] + options)
            #expect(get.status == 6 && get.stderr.contains("--max-decode-memory"), "\(name): \(get)")
            #expect(get.peakBytes < 150 << 20, "\(name): \(get)")
        }
    }

    @Test func aRaisedLimitDecodesTheBomb() throws {
        try #require(CappedProcess.available, "capped-run and thumbcache must be built beside the tests")
        let directory = try ThumbcacheChild.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("progressive.jpg")
        try Data(Self.bombs[0].bytes).write(to: input)
        let output = directory.appendingPathComponent("out.jpg")
        let outcome = try CappedProcess.thumbcache(
            ["thumbnail", input.path, "--size", "64", "--max-decode-memory", "400MiB", "-o", output.path])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(try ImageDecoder.probe(Data(contentsOf: output)).width == 64)
    }
}
