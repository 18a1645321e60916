import Foundation
import Testing
@testable import ImageDecode

@Suite struct OrientationTests {
    /// Landscape_N stores the same photo transformed so that EXIF value N makes it upright
    /// (N = 0 is an invalid value that must be ignored). All thumbnails must match Landscape_1.
    @Test func everyOrientationComesOutUpright() throws {
        let thumbnailer = Thumbnailer()
        let request = ThumbnailRequest(size: 90, format: .png)
        func thumbnail(_ n: Int) throws -> PixelBuffer {
            let made = try thumbnailer.makeThumbnail(from: Fixtures.data("orientation/Landscape_\(n).jpg"), request)
            return try ImageDecoder.decode(made.data)
        }
        let upright = try thumbnail(1)
        #expect((upright.width, upright.height) == (90, 60))
        for n in [0, 2, 3, 4, 5, 6, 7, 8] {
            let image = try thumbnail(n)
            #expect((image.width, image.height) == (90, 60), "Landscape_\(n)")
            let difference = Fixtures.meanAbsoluteDifference(image, upright)
            #expect(difference < 4, "Landscape_\(n) differs from upright by \(difference)")
        }
    }

    @Test func wrongTransformWouldBeDetected() throws {
        // Guards the test above: a plain 180 degree turn of the upright thumbnail is far off.
        let made = try Thumbnailer().makeThumbnail(from: Fixtures.data("orientation/Landscape_1.jpg"),
                                                   ThumbnailRequest(size: 90, format: .png))
        let upright = try ImageDecoder.decode(made.data)
        #expect(Fixtures.meanAbsoluteDifference(Orientation.rotate180.apply(to: upright), upright) > 15)
    }

    @Test func exifOrientationIsReadInBothByteOrders() {
        // IFD0 at offset 8 with one entry: tag 0x0112, type SHORT, count 1, value 6.
        let little: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0]
        let big: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 8, 0, 0, 0, 0, 0, 0]
        #expect(little.withUnsafeBytes { EXIF.orientation(tiff: $0) } == .rotate90)
        #expect(big.withUnsafeBytes { EXIF.orientation(tiff: $0) } == .rotate270)
        #expect(Array("Exif\0\0".utf8).withUnsafeBytes { EXIF.orientation(tiff: $0) } == nil)
        // An IFD offset pointing past the end is ignored rather than read.
        let broken: [UInt8] = [0x49, 0x49, 42, 0, 0xFF, 0xFF, 0, 0]
        #expect(broken.withUnsafeBytes { EXIF.orientation(tiff: $0) } == nil)
    }

    @Test func transformsMapCornersLikeExif() {
        // 2x1 image: left pixel 1, right pixel 2. Rotating 90 clockwise puts left on top.
        let image = PixelBuffer(width: 2, height: 1, channels: 3, pixels: [1, 1, 1, 2, 2, 2])
        #expect(Orientation.rotate90.apply(to: image).pixels == [1, 1, 1, 2, 2, 2])
        #expect(Orientation.rotate270.apply(to: image).pixels == [2, 2, 2, 1, 1, 1])
        #expect(Orientation.flipHorizontal.apply(to: image).pixels == [2, 2, 2, 1, 1, 1])
        #expect(Orientation.rotate90.apply(to: image).width == 1)
        #expect(Orientation(exifValue: 0) == .identity && Orientation(exifValue: 9) == .identity)
    }
}
