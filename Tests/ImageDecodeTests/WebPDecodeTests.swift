import Foundation
import Testing
@testable import ImageDecode

struct WebPDecodeTests {
    let thumbnailer = Thumbnailer()

    @Test func lossyLosslessAndAlpha() throws {
        let lossy = try ImageDecoder.probe(Fixtures.data("webp/lossy.webp"))
        #expect(lossy == ImageInfo(format: .webp, width: 128, height: 128, frameCount: 1))
        let lossless = try ImageDecoder.decode(Fixtures.data("webp/lossless-alpha.webp"))
        #expect(lossless.width == 256 && lossless.channels == 4)
        #expect(stride(from: 3, to: lossless.pixels.count, by: 4).contains { lossless.pixels[$0] < 255 })
        let alpha = try ImageDecoder.decode(Fixtures.data("webp/lossy-alpha.webp"))
        #expect(alpha.width == 200 && alpha.height == 150 && alpha.channels == 4)
        #expect(stride(from: 3, to: alpha.pixels.count, by: 4).contains { alpha.pixels[$0] == 0 })
    }

    @Test func animationGivesItsFirstFrame() throws {
        let data = try Fixtures.data("webp/animated.webp")
        let info = try ImageDecoder.probe(data)
        #expect(info.width == 200 && info.height == 200 && info.frameCount == 6)
        let made = try thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 100, format: .png))
        #expect(made.width == 100 && made.height == 100)
    }

    @Test func exifOrientationChunkIsApplied() throws {
        let data = try Fixtures.data("webp/orientation-6.webp")
        #expect(try ImageDecoder.probe(data).orientation == .rotate90)
        let request = ThumbnailRequest(size: 64, format: .png)
        let rotated = try ImageDecoder.decode(thumbnailer.makeThumbnail(from: data, request).data)
        let upright = try ImageDecoder.decode(thumbnailer.makeThumbnail(from: Fixtures.data("webp/lossy.webp"), request).data)
        #expect(Fixtures.meanAbsoluteDifference(rotated, upright) < 6)
    }

    @Test func iccProfileChunkIsRead() throws {
        let info = try ImageDecoder.probe(Fixtures.data("webp/icc-exif-xmp.webp"))
        #expect(info.colorProfile != nil && info.width == 300 && info.height == 225)
    }

    @Test func scaledDecodeIsTheShrinkOnLoadStep() throws {
        let data = try Fixtures.data("webp/lossy.webp")
        let sides: [Int]? = data.withUnsafeBytes { bytes in
            guard let decoder = try? WebPDecoder(bytes) else { return nil }
            let size = decoder.decodedSize(shrink: 8)
            return [size.width, size.height]
        }
        #expect(sides == [32, 32])
        // The scaled path must still look like a full decode resized.
        let small = try ImageDecoder.decode(thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 16, format: .png)).data)
        let full = Fixtures.resize(try ImageDecoder.decode(data), to: 16, 16)
        #expect(Fixtures.meanAbsoluteDifference(small, full) < 4)
    }

    @Test func truncatedAndCorruptFilesAreRefused() throws {
        #expect(throws: ImageDecodeError.truncated) { try ImageDecoder.decode(Fixtures.data("webp/truncated.webp")) }
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(Fixtures.data("webp/corrupt-riff.webp")) }
        var cut = try Fixtures.data("webp/lossless-alpha.webp")
        cut.removeLast(cut.count / 3)
        #expect(throws: ImageDecodeError.truncated) { try ImageDecoder.decode(cut) }
    }

    @Test func fileAndMemoryGiveTheSameThumbnail() throws {
        let path = Fixtures.directory.appendingPathComponent("webp/lossy-alpha.webp").path
        let request = ThumbnailRequest(size: 50)
        let fromFile = try thumbnailer.makeThumbnail(from: .file(path), request)
        let fromMemory = try thumbnailer.makeThumbnail(from: Data(contentsOf: URL(fileURLWithPath: path)), request)
        #expect(fromFile.data == fromMemory.data && fromFile.format == .png)
    }
}
