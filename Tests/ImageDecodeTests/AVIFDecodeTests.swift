import Foundation
import Testing
@testable import ImageDecode

struct AVIFDecodeTests {
    let thumbnailer = Thumbnailer()

    @Test func iccProfileAndFullChroma() throws {
        let data = try Fixtures.data("avif/icc-444.avif")
        let info = try ImageDecoder.probe(data)
        #expect(info.format == .avif && info.width == 403 && info.height == 302 && info.colorProfile != nil)
        #expect(try ImageDecoder.decode(data).channels == 3)
    }

    @Test func irotAndImirBecomeTheOrientation() throws {
        let rotated = try Fixtures.data("avif/irot-alpha.avif")
        let info = try ImageDecoder.probe(rotated)
        #expect(info.orientation == .rotate270 && info.hasAlpha)
        let made = try thumbnailer.makeThumbnail(from: rotated, ThumbnailRequest(size: 64, format: .png))
        #expect(made.width == 32 && made.height == 64)
        #expect(try ImageDecoder.probe(Fixtures.data("avif/imir.avif")).orientation == .flipHorizontal)
    }

    @Test func orientationTableMatchesHEIFOrder() {
        // irot, then imir. Checked by composing the two on a 2x3 image with distinct pixels.
        let image = Fixtures.image(width: 2, height: 3, channels: 3) { x, y in [UInt8(x), UInt8(y), 0] }
        func rotateCCW(_ i: PixelBuffer) -> PixelBuffer { Orientation.rotate270.apply(to: i) }
        for rotation in 0..<4 {
            for mirror in [-1, 0, 1] {
                var expected = image
                for _ in 0..<rotation { expected = rotateCCW(expected) }
                if mirror == 0 { expected = Orientation.flipVertical.apply(to: expected) }
                if mirror == 1 { expected = Orientation.flipHorizontal.apply(to: expected) }
                let got = AVIFDecoder.orientation(rotation: rotation, mirror: mirror).apply(to: image)
                #expect(got == expected, "irot \(rotation) imir \(mirror)")
            }
        }
    }

    @Test func sequencesGiveTheirFirstFrame() throws {
        let data = try Fixtures.data("avif/sequence.avif")
        #expect(try ImageDecoder.probe(data).frameCount == 5)
        #expect(try ImageDecoder.decode(data).width == 150)
        let deep = try Fixtures.data("avif/sequence-12bit-422-alpha.avif")
        let image = try ImageDecoder.decode(deep)
        #expect(image.width == 64 && image.channels == 4)
    }

    @Test func hdrIsToneMappedNotClipped() throws {
        let image = try ImageDecoder.decode(Fixtures.data("avif/hdr-pq-bt2020.avif"))
        let mean = Double(image.pixels.reduce(0) { $0 + Int($1) }) / Double(image.pixels.count)
        // PQ code values read as if sRGB would be far too bright; clipping would make most values 255.
        let saturated = image.pixels.filter { $0 == 255 }.count
        #expect(mean > 20 && mean < 200 && saturated < image.pixels.count / 2)
        let stored = try ImageDecoder.decode(Fixtures.data("avif/hdr-pq-bt2020.avif"), convertToSRGB: false)
        #expect(stored.pixels != image.pixels)
    }

    @Test func eightBitWhiteStaysWhite() throws {
        let image = try ImageDecoder.decode(Fixtures.data("avif/white-1x1.avif"))
        #expect(image.width == 1 && image[0, 0].allSatisfy { $0 >= 253 })
    }

    @Test func invalidTruncatedAndOverBudgetFilesAreRefused() throws {
        do {
            _ = try ImageDecoder.decode(Fixtures.data("avif/missing-pixi.avif"))
            Issue.record("missing pixi must be refused")
        } catch {
            #expect("\(error)".contains("pixi"))
        }
        var cut = try Fixtures.data("avif/icc-444.avif")
        cut.removeLast(cut.count / 3)
        #expect(throws: ImageDecodeError.truncated) { try ImageDecoder.decode(cut) }
        #expect(throws: ImageDecodeError.self) {
            try thumbnailer.makeThumbnail(from: Fixtures.data("avif/icc-444.avif"), ThumbnailRequest(size: 64, maxPixels: 10_000))
        }
    }
}
