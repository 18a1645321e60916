import BombTestSupport
import Foundation
import SeededRandom
import Testing
@testable import ImageDecode

/// Issue 14, B4: ancillary chunks that inflate without bound (zTXt, iTXt, iCCP) and compressed data behind the
/// image. Only the chunks the decoder uses are read, at most one profile is inflated, and image data going on
/// past the last row is refused. The bombs are crafted in memory around a real fixture, whose pixels must not
/// change.
struct PNGChunkBombTests {
    /// 7.9 MB of text ("AAA…", not zeros: text ends at a zero byte) as zlib, about 8 KB, reused by every bomb
    /// chunk: just under libpng's 8,000,000-byte limit for one chunk's inflated data, so a reader that reads
    /// the chunk inflates and keeps all of it.
    static let nearLimit = CraftedPNG.deflate(repeating: 0x41, count: 7_900_000)

    static func fixture() throws -> [UInt8] { [UInt8](try Fixtures.data("rocket-adobergb.png")) }

    static func decode(_ png: [UInt8]) throws -> PixelBuffer { try ImageDecoder.decode(Data(png)) }

    @Test func textAndUnknownChunksAroundTheImageAreSkippedAndThePixelsStayTheSame() throws {
        let clean = try Self.fixture()
        let before = (0..<20).map { _ in CraftedPNG.zTXt(compressed: Self.nearLimit) }
            + [CraftedPNG.chunk("tEXt", Array("Comment\0".utf8) + [UInt8](repeating: 0x41, count: 1 << 20)),
               CraftedPNG.chunk("bmBo", [UInt8](repeating: 7, count: 1 << 20)),  // unknown, ancillary
               CraftedPNG.chunk("sPLT", Array("palette\0".utf8) + [8] + [UInt8](repeating: 1, count: 6 * 1000))]
        let after = (0..<20).map { _ in CraftedPNG.iTXt(compressed: Self.nearLimit) }
            + [CraftedPNG.zTXt(compressed: Self.nearLimit)]
        let bombed = CraftedPNG.inserting(before, after, into: clean)
        #expect(try Self.decode(bombed) == Self.decode(clean))
        let thumbnailer = Thumbnailer()
        #expect(try thumbnailer.makeThumbnail(from: Data(bombed), ThumbnailRequest(size: 40)).data
            == thumbnailer.makeThumbnail(from: Data(clean), ThumbnailRequest(size: 40)).data)
    }

    @Test func onlyTheFirstProfileIsUsed() throws {
        let clean = try Self.fixture()
        // Profiles after the real one, each inflating to 7.9 MB, and an sRGB chunk: none may be inflated, none
        // may replace it or make libpng drop it.
        let extra = (0..<30).map { _ in CraftedPNG.iCCP(compressed: Self.nearLimit) } + [CraftedPNG.chunk("sRGB", [0])]
        let chunks = CraftedPNG.chunks(of: clean)
        var bombed = CraftedPNG.signature
        for (type, data) in chunks {
            bombed += CraftedPNG.chunk(type, data)
            if type == "iCCP" { bombed += extra.joined() }
        }
        #expect(try ImageDecoder.probe(Data(bombed)).colorProfile == ImageDecoder.probe(Data(clean)).colorProfile)
        #expect(try Self.decode(bombed) == Self.decode(clean))
    }

    @Test func compressedDataGoingOnPastTheImageIsRefused() throws {
        // 16x16 pixels, then 64 MB more zeros in the same stream (about 64 KB compressed): libpng would
        // inflate them all, 1 KiB at a time, after the last row.
        let bomb = CraftedPNG.blank(width: 16, height: 16, excessZeros: 64_000_000)
        let directory = try ThumbcacheChild.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("trailing.png")
        try Data(bomb).write(to: file)
        for input in [EncodedImage.data(Data(bomb)), .file(file.path)] {
            #expect {
                try Thumbnailer().makeThumbnail(from: input, ThumbnailRequest(size: 8))
            } throws: { error in
                guard case .corrupt(let message) = error as? ImageDecodeError else { return false }
                return message.contains("past the end of the image")
            }
        }
        // Interlaced too: the last row is read in the last pass.
        #expect(throws: ImageDecodeError.self) {
            try Self.decode(CraftedPNG.blank(width: 16, height: 16, interlaced: true, excessZeros: 64_000_000))
        }
    }

    @Test func aFewBytesOfSlackAfterTheImageAreStillAccepted() throws {
        // Some encoders leave a little behind; libpng's warning about it is not a reason to refuse the image.
        for interlaced in [false, true] {
            let image = try Self.decode(CraftedPNG.blank(width: 300, height: 7, interlaced: interlaced, excessZeros: 100))
            #expect((image.width, image.height) == (300, 7))
            #expect(image.pixels.allSatisfy { $0 == 0 })
        }
        // Incompressible rows (random pixels): the last row's own compressed data is large, and is not excess.
        var random = SplitMix64(seed: 14)
        let (width, height) = (3000, 3)
        var filtered: [UInt8] = [], pixels: [UInt8] = []
        for _ in 0..<height {
            let row = (0..<width * 4).map { _ in UInt8.random(in: 0...255, using: &random) }
            filtered += [0] + row
            pixels += row
        }
        let image = try Self.decode(CraftedPNG.image(width: width, height: height, colorType: .rgba, filtered: filtered))
        #expect(image.pixels == pixels)
    }

    /// The zTXt bomb of the shape, in a child capped at 1 GiB: 200 chunks of 7.9 MB of text (1.6 GB
    /// inflated, 1.6 MB on disk) around a 32x32 image. Before the fix libpng inflated every one and kept the
    /// 100 before the image data: 814 MB and 9.9 s (debug build).
    @Test func zTXtBombStaysSmallInAChildProcess() throws {
        #expect(CappedProcess.available, "capped-run and thumbcache must be built beside the tests")
        guard CappedProcess.available else { return }
        let directory = try ThumbcacheChild.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let chunk = CraftedPNG.zTXt(compressed: Self.nearLimit)
        let bomb = CraftedPNG.blank(width: 32, height: 32, before: Array(repeating: chunk, count: 100),
                                    after: Array(repeating: chunk, count: 100))
        let input = directory.appendingPathComponent("ztxt-bomb.png")
        try Data(bomb).write(to: input)
        let outcome = try CappedProcess.thumbcache(
            ["thumbnail", input.path, "--size", "16", "-o", directory.appendingPathComponent("out.png").path])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.peakBytes < 200 << 20, "\(outcome)")
    }
}
