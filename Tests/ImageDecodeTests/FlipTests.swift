import Foundation
import Testing
@testable import ImageDecode

/// imgproxy's `flip`, rendered: after EXIF orientation and `rotate`, horizontal then vertical
/// (processing/rotate_and_flip.go), composed into the one transform the renderer already makes, with crops and
/// gravities meaning what they say on the flipped result (crop.go adjusts the gravity to the same end).
@Suite struct FlipTests {
    static func render(_ input: EncodedImage, autoRotate: Bool = true, _ edit: (inout GeometryOptions) -> Void) throws -> PixelBuffer {
        var geometry = GeometryOptions()
        edit(&geometry)
        let info = try ImageDecoder.probe(input)
        let (width, height) = autoRotate ? (info.orientedWidth, info.orientedHeight) : (info.width, info.height)
        let plan = ProcessingPlan(sourceWidth: width, sourceHeight: height, geometry: geometry)
        return try PlanRenderer().render(from: input, plan: plan, autoRotate: autoRotate)
    }

    /// A 5×3 image whose every pixel differs from every other.
    static let numbered = Fixtures.image(width: 5, height: 3, channels: 3) { x, y in [UInt8(x * 40), UInt8(y * 90), 7] }

    @Test func aFlipMirrorsEveryPixelExactly() throws {
        let input = EncodedImage.data(try ImageEncoder.encode(Self.numbered, as: .png))
        let horizontal = try Self.render(input) { $0.flipHorizontal = true }
        let vertical = try Self.render(input) { $0.flipVertical = true }
        let both = try Self.render(input) { $0.flipHorizontal = true; $0.flipVertical = true }
        for y in 0..<3 {
            for x in 0..<5 {
                #expect(horizontal[x, y] == Self.numbered[4 - x, y])
                #expect(vertical[x, y] == Self.numbered[x, 2 - y])
                #expect(both[x, y] == Self.numbered[4 - x, 2 - y])
            }
        }
    }

    @Test func aFlipFollowsTheRotation() throws {
        let input = EncodedImage.data(try ImageEncoder.encode(Self.numbered, as: .png))
        // rot:90 then fl:1: the rotated image (3×5), mirrored left-right.
        let image = try Self.render(input) { $0.rotate = 90; $0.flipHorizontal = true }
        #expect(image.width == 3 && image.height == 5)
        let rotated = Orientation.rotate90.apply(to: Self.numbered)
        for y in 0..<5 { for x in 0..<3 { #expect(image[x, y] == rotated[2 - x, y]) } }
    }

    @Test func aCropsGravityIsOnTheFlippedImage() throws {
        let input = EncodedImage.data(try ImageEncoder.encode(Self.numbered, as: .png))
        // c:2:1:nowe on the mirrored image: its top-left, which is the source's top-right, mirrored.
        let image = try Self.render(input) {
            $0.flipHorizontal = true; $0.cropWidth = 2; $0.cropHeight = 1; $0.cropGravity = .compass(.northWest)
        }
        #expect(image.width == 2 && image.height == 1)
        #expect(image[0, 0] == Self.numbered[4, 0] && image[1, 0] == Self.numbered[3, 0])
    }

    static func orientationFixture(_ index: Int) throws -> EncodedImage {
        .data(try Fixtures.data("imgproxy/orientation-\(index).png"))
    }

    /// rotate × flipH × flipV in rotate_and_flip_test.go's order.
    static let combinations: [(rotate: Int, horizontal: Bool, vertical: Bool)] =
        [0, 90, 180, 270].flatMap { rotate in [false, true].flatMap { h in [false, true].map { v in (rotate, h, v) } } }

    static func renders(_ index: Int, autoRotate: Bool) throws -> [PixelBuffer] {
        let input = try orientationFixture(index)
        return try combinations.map { combination in
            try render(input, autoRotate: autoRotate) {
                $0.rotate = combination.rotate; $0.flipHorizontal = combination.horizontal; $0.flipVertical = combination.vertical
            }
        }
    }

    /// rotate_and_flip_test.go TestOrientationAutoRotate and TestRotateFlip: without auto-rotation the nine images
    /// (the same pixels, EXIF orientations none and 1…8) render alike for every combination, and each combination
    /// differs from the one before it.
    @Test func withoutAutoRotationEveryOrientationRendersAlike() throws {
        let first = try Self.renders(0, autoRotate: false)
        for index in 1...8 { #expect(try Self.renders(index, autoRotate: false) == first, "orientation-\(index)") }
        for n in 1..<first.count { #expect(first[n] != first[n - 1], "combination \(n)") }
    }

    /// rotate_and_flip_test.go TestRotateFlipAutoRotate: with auto-rotation every orientation differs from the
    /// unoriented image for every combination, and consecutive combinations differ.
    @Test func withAutoRotationEachOrientationDiffers() throws {
        let first = try Self.renders(0, autoRotate: true)
        for index in 1...8 {
            let renders = try Self.renders(index, autoRotate: true)
            for n in renders.indices { #expect(renders[n] != first[n], "orientation-\(index), combination \(n)") }
            for n in 1..<renders.count { #expect(renders[n] != renders[n - 1], "orientation-\(index), combination \(n)") }
        }
    }
}
