import Foundation
import Testing
@testable import ImageDecode

/// A render that keeps the source's size reads each row straight into its upright place (`UprightRowWriter`),
/// converting it to sRGB on the way: the same pixels as decoding, converting and orienting the whole image, with one
/// image made instead of three.
@Suite struct FullSizeReadTests {
    /// Every pixel different from every other, in each channel layout.
    static func numbered(width: Int, height: Int, channels: Int) -> PixelBuffer {
        Fixtures.image(width: width, height: height, channels: channels) { x, y in
            [UInt8(x * 23 % 256), UInt8(y * 41 % 256), UInt8((x + y * width) % 256), 200].prefix(channels).map { $0 }
        }
    }

    @Test func uprightPositionUndoesSourcePosition() {
        for orientation in Orientation.allCases {
            let (width, height) = (5, 3)
            for y in 0..<height {
                for x in 0..<width {
                    let upright = orientation.uprightPosition(x: x, y: y, sourceWidth: width, sourceHeight: height)
                    #expect(orientation.sourcePosition(x: upright.0, y: upright.1, sourceWidth: width, sourceHeight: height)
                        == (x, y), "\(orientation)")
                }
            }
        }
    }

    @Test func theRowWriterPutsEveryPixelWhereOrientationDoes() {
        for orientation in Orientation.allCases {
            for channels in [3, 4] {
                for (width, height) in [(5, 3), (1, 4), (4, 1), (1, 1), (2, 3), (3, 2), (37, 5)] {
                    let stored = Self.numbered(width: width, height: height, channels: channels)
                    let writer = UprightRowWriter(orientation: orientation, storedWidth: width, storedHeight: height,
                                                  channels: channels)
                    var pixels = [UInt8](repeating: 0, count: stored.pixels.count)
                    stored.pixels.withUnsafeBufferPointer { source in
                        pixels.withUnsafeMutableBufferPointer { target in
                            for y in 0..<height {
                                writer.write(source.baseAddress! + y * stored.rowBytes, storedRow: y, into: target.baseAddress!)
                            }
                        }
                    }
                    let written = PixelBuffer(width: writer.uprightWidth, height: writer.uprightHeight, channels: channels,
                                              pixels: pixels)
                    #expect(written == orientation.apply(to: stored), "\(orientation), \(channels) channels, \(width)×\(height)")
                }
            }
        }
    }

    /// The plan of a render at the source's own size, with `edit` (rotate, flip).
    static func fullSize(_ data: Data, _ edit: (inout GeometryOptions) -> Void = { _ in }) throws -> PixelBuffer {
        var geometry = GeometryOptions()
        edit(&geometry)
        let info = try ImageDecoder.probe(data)
        let plan = ProcessingPlan(sourceWidth: info.orientedWidth, sourceHeight: info.orientedHeight, geometry: geometry)
        #expect(plan.resultWidth * plan.resultHeight == info.width * info.height)
        return try PlanRenderer().render(from: .data(data), plan: plan)
    }

    @Test func aFullSizeRenderIsTheDecodeConvertedAndOriented() throws {
        // Adobe RGB converted (RGB and RGBA), EXIF orientation 6, and rotate + flip on an untagged JPEG.
        for name in ["rocket.jpg", "rocket-adobergb-alpha.png", "orientation/Landscape_6.jpg"] {
            let data = try Fixtures.data(name)
            let decoded = try ImageDecoder.decode(data)
            #expect(try Self.fullSize(data) == ImageDecoder.probe(data).orientation.apply(to: decoded), "\(name)")
        }
        let plain = try Fixtures.data("testorig.jpg")
        let turned = try Self.fullSize(plain) { $0.rotate = 90; $0.flipHorizontal = true }
        #expect(turned == Orientation.rotate90.followed(by: .flipHorizontal).apply(to: try ImageDecoder.decode(plain)))
    }

    @Test func aFullSizeReadIsChargedOneImage() throws {
        let input = try PlanRendererTests.png(Fixtures.stripes(width: 400, height: 300))
        let full = ProcessingPlan(sourceWidth: 400, sourceHeight: 300, geometry: GeometryOptions())
        var smaller = GeometryOptions()
        smaller.width = 398
        let resized = ProcessingPlan(sourceWidth: 400, sourceHeight: 300, geometry: smaller)
        let fullBytes = try PlanRenderer().workingMemory(for: input, plan: full)
        let resizedBytes = try PlanRenderer().workingMemory(for: input, plan: resized)
        // 400×300 read straight upright (and a converted row) against 398×299 resized with its sRGB and upright copies.
        #expect(resizedBytes - fullBytes > 2 * 398 * 299 * 3 - 400 * 300 * 3, "full \(fullBytes), resized \(resizedBytes)")
        #expect(try PlanRenderer().render(from: input, plan: full, limits: RenderLimits(maxDecodeMemory: fullBytes)).width == 400)
    }
}
