import Foundation
import Testing
@testable import ImageDecode

struct GIFDecodeTests {
    static let palette: [[UInt8]] = [[0, 0, 0], [255, 0, 0], [0, 255, 0], [0, 0, 255]]
    /// 3x8 indices, a different pattern on every row so a misplaced row shows.
    static let rows: [[UInt8]] = (0..<8).map { (y: Int) -> [UInt8] in
        (0..<3).map { (x: Int) -> UInt8 in UInt8((x + y * 3 + y / 4) % 4) }
    }

    static func expected(_ rows: [[UInt8]]) -> [UInt8] {
        rows.flatMap { (row: [UInt8]) -> [UInt8] in row.flatMap { (index: UInt8) -> [UInt8] in palette[Int(index)] } }
    }

    @Test func decodesLiteralCodesToThePaletteColours() throws {
        let image = try ImageDecoder.decode(CraftedGIF.make(rows: Self.rows))
        #expect(image.width == 3 && image.height == 8 && image.channels == 3)
        #expect(image.pixels == Self.expected(Self.rows))
    }

    @Test func interlacedRowsLandInDisplayOrder() throws {
        let info = try ImageDecoder.probe(CraftedGIF.make(rows: Self.rows, interlaced: true))
        #expect(info.format == .gif && info.isProgressive)
        let image = try ImageDecoder.decode(CraftedGIF.make(rows: Self.rows, interlaced: true))
        #expect(image.pixels == Self.expected(Self.rows))
    }

    @Test func transparentIndexBecomesAlpha() throws {
        let data = CraftedGIF.make(rows: Self.rows, transparentIndex: 2)
        #expect(try ImageDecoder.probe(data).hasAlpha)
        let image = try ImageDecoder.decode(data)
        #expect(image.channels == 4)
        for (i, index) in Self.rows.flatMap({ $0 }).enumerated() {
            #expect(image.pixels[i * 4 + 3] == (index == 2 ? 0 : 255))
        }
    }

    @Test func aCodeNotYetInTheTableIsRefused() {
        // After clear and one literal the next free code is 6; 7 does not exist yet. giflib's own
        // decompressor does not check this case.
        let data = CraftedGIF.make(rows: [[1, 1], [1, 1]], codes: [4, 1, 7, 1, 5])
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(data) }
        do { _ = try ImageDecoder.decode(data) } catch {
            guard case .corrupt(let text) = error else { Issue.record("expected corrupt, got \(error)"); return }
            #expect(text.contains("LZW"))
        }
    }

    @Test func aFrameWhoseDataEndsEarlyIsRefused() {
        // End-of-information after 3 of the 4 pixels: no pixel is invented for the fourth.
        let data = CraftedGIF.make(rows: [[1, 2], [3, 1]], codes: [4, 1, 2, 4, 3, 5])
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(data) }
        var cut = CraftedGIF.make(rows: Self.rows)
        cut.removeLast(6)
        #expect(throws: ImageDecodeError.truncated) { try ImageDecoder.decode(cut) }
    }

    @Test func aHugeScreenIsRefusedFromTheHeader() {
        let data = CraftedGIF.make(rows: [[1]], screen: (65535, 65535))
        #expect(throws: ImageDecodeError.tooLarge(width: 65535, height: 65535, limit: ImageDecoder.defaultMaxPixels)) {
            try Thumbnailer().makeThumbnail(from: data, ThumbnailRequest(size: 64))
        }
    }

    @Test func firstFrameIsDrawnOnTheLogicalScreen() throws {
        // 27x32 first frame on a 38x32 screen: the rest of the screen is transparent.
        let partial = try ImageDecoder.decode(Fixtures.data("gif/animated-partial-first-frame.gif"))
        #expect(partial.width == 38 && partial.height == 32 && partial.channels == 4)
        #expect(partial[37, 5][3] == 0)
        // A 50x50 interlaced frame at +25+0 on a 75x50 screen.
        let offset = try ImageDecoder.decode(Fixtures.data("gif/offset-interlaced-frame.gif"))
        #expect(offset.width == 75 && offset.height == 50 && offset[10, 10][3] == 0)
        // A 16x16 frame at +24+24 on a 32x32 screen is clipped, not grown.
        let clipped = try ImageDecoder.decode(Fixtures.data("gif/frame-outside-screen.gif"))
        #expect(clipped.width == 32 && clipped.height == 32)
    }

    @Test func fixturesDecodeOrAreRefusedAsExpected() throws {
        let thumbnailer = Thumbnailer()
        let hopper = try thumbnailer.makeThumbnail(from: Fixtures.data("gif/static.gif"), ThumbnailRequest(size: 64))
        #expect(hopper.sourceInfo.format == .gif && hopper.width == 64 && !hopper.sourceInfo.hasAlpha)
        #expect(try ImageDecoder.probe(Fixtures.data("gif/transparent.gif")).hasAlpha)
        let text = try ImageDecoder.decode(Fixtures.data("gif/interlaced.gif"))
        #expect(text.width == 100 && text.height == 30)
        let grey = try ImageDecoder.decode(Fixtures.data("gif/no-palette.gif"))
        #expect(grey.width == 1 && grey[0, 0][0] == grey[0, 0][1])
        for name in ["lzw-code-size-11", "truncated-frame", "corrupt-record"] {
            #expect(throws: ImageDecodeError.self, "\(name)") {
                try thumbnailer.makeThumbnail(from: Fixtures.data("gif/\(name).gif"), ThumbnailRequest(size: 64))
            }
        }
    }

    /// The same hopper picture as a GIF (256 colours) and a lossy WebP: the thumbnails must agree.
    @Test func gifAndWebPOfTheSamePictureAgree() throws {
        let request = ThumbnailRequest(size: 64, format: .png)
        let gif = try ImageDecoder.decode(Thumbnailer().makeThumbnail(from: Fixtures.data("gif/static.gif"), request).data)
        let webp = try ImageDecoder.decode(Thumbnailer().makeThumbnail(from: Fixtures.data("webp/lossy.webp"), request).data)
        #expect(Fixtures.meanAbsoluteDifference(gif, webp) < 8)
    }
}
