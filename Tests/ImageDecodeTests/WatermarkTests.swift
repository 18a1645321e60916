import Foundation
import Testing
@testable import ImageDecode

/// imgproxy's `watermark` (processing/watermark.go): positions by calc_position.go with overflow, offsets (pixels
/// times dpr, or fractions), opacity (the URL's times the server's), `re` tiles centred with the offsets as space
/// between copies, `scale` fits the watermark in a fraction of the result; drawn last, over padding too.
@Suite struct WatermarkTests {
    static let grey: [UInt8] = [128, 128, 128]
    static let red: [UInt8] = [255, 0, 0]
    static let background = Fixtures.image(width: 100, height: 80, channels: 3) { _, _ in grey }
    static let mark = WatermarkImage(pixels: Fixtures.image(width: 10, height: 10, channels: 3) { _, _ in red })

    static func render(_ options: WatermarkOptions, image: WatermarkImage = mark, source: PixelBuffer = background,
                       _ edit: (inout GeometryOptions) -> Void = { _ in }) throws -> PixelBuffer {
        var geometry = GeometryOptions()
        edit(&geometry)
        let plan = ProcessingPlan(sourceWidth: source.width, sourceHeight: source.height, geometry: geometry)
        return try PlanRenderer().render(from: .data(try ImageEncoder.encode(source, as: .png)), plan: plan,
                                         effects: RenderEffects(watermark: .init(image: image, options: options)))
    }

    /// The red block's top-left corner, found by scanning.
    static func corner(_ image: PixelBuffer) -> (x: Int, y: Int)? {
        for y in 0..<image.height { for x in 0..<image.width where Array(image[x, y].prefix(3)) == red { return (x, y) } }
        return nil
    }

    /// calc_position.go: centred with (outer − inner + 1) / 2 rounded to even; edges exact.
    static let positions: [(Gravity.CompassPoint, Int, Int)] = [
        (.center, 46, 36), (.north, 46, 0), (.south, 46, 70), (.east, 90, 36), (.west, 0, 36),
        (.northEast, 90, 0), (.northWest, 0, 0), (.southEast, 90, 70), (.southWest, 0, 70),
    ]

    @Test(arguments: positions.indices)
    func eachPositionPlacesTheWatermark(_ index: Int) throws {
        let (point, x, y) = Self.positions[index]
        let image = try Self.render(WatermarkOptions(opacity: 1, position: .compass(point)))
        #expect(Self.corner(image)! == (x, y), "\(point)")
        #expect(image[x + 9, y + 9] == Self.red && (x == 0 || image[x - 1, y] == Self.grey))
    }

    @Test func offsetsArePixelsTimesDprOrFractions() throws {
        #expect(Self.corner(try Self.render(WatermarkOptions(opacity: 1, position: .compass(.northWest), x: 5, y: 7)))! == (5, 7))
        // East and south offsets push inwards.
        #expect(Self.corner(try Self.render(WatermarkOptions(opacity: 1, position: .compass(.southEast), x: 5, y: 7)))! == (85, 63))
        // 0.1 of 100 × 80.
        #expect(Self.corner(try Self.render(WatermarkOptions(opacity: 1, position: .compass(.northWest), x: 0.1, y: 0.1)))! == (10, 8))
        // dpr 2 doubles pixel offsets (the result is 200 × 160, enlarged).
        let doubled = try Self.render(WatermarkOptions(opacity: 1, position: .compass(.northWest), x: 5, y: 7)) {
            $0.dpr = 2; $0.enlarge = true; $0.width = 100
        }
        #expect(doubled.width == 200 && Self.corner(doubled)! == (10, 14))
    }

    @Test func aWatermarkMayOverflowTheEdge() throws {
        // north with y −5: 5 rows above the image, the rest drawn.
        let image = try Self.render(WatermarkOptions(opacity: 1, position: .compass(.north), y: -5))
        #expect(image[46, 0] == Self.red && image[46, 4] == Self.red && image[46, 5] == Self.grey)
        // Entirely outside (offset past the far edge): clamped to overlap by a pixel, as calcPosition does.
        let far = try Self.render(WatermarkOptions(opacity: 1, position: .compass(.northWest), x: 500))
        #expect(far[99, 0] == Self.red && far[98, 0] == Self.grey)
    }

    @Test func opacityIsTheURLsTimesTheServers() throws {
        let half = try Self.render(WatermarkOptions(opacity: 0.5, position: .compass(.northWest)))
        // 255 × 0.5 + 128 × 0.5 = 191.5, and 128 × 0.5 = 64.
        #expect(half[0, 0] == [192, 64, 64])
        let serverHalf = WatermarkImage(pixels: Self.mark.pixels, opacity: 0.5)
        let quarter = try Self.render(WatermarkOptions(opacity: 0.5, position: .compass(.northWest)), image: serverHalf)
        // 255 × 0.25 + 128 × 0.75 = 159.75, and 128 × 0.75 = 96.
        #expect(quarter[0, 0] == [160, 96, 96])
        #expect(try Self.render(WatermarkOptions(opacity: 0)) == Self.background.cropped(x: 0, y: 0, width: 100, height: 80))
    }

    @Test func replicateTilesFromTheCentre() throws {
        // A watermark whose left half is red and right half transparent: 11 copies across 100 pixels (odd), the
        // middle one centred, so the first column shows the middle of a copy (transparent) and column 5 its start.
        let half = WatermarkImage(pixels: Fixtures.image(width: 10, height: 10, channels: 4) { x, _ in x < 5 ? [255, 0, 0, 255] : [0, 0, 0, 0] })
        let image = try Self.render(WatermarkOptions(opacity: 1, position: .replicate), image: half)
        #expect(image[0, 0] == Self.grey && image[4, 0] == Self.grey && image[5, 0] == Self.red && image[9, 0] == Self.red)
        for x in 0..<100 { #expect(image[x, 3] == ((x + 5) % 10 < 5 ? Self.red : Self.grey), "column \(x)") }
        // Offsets are the space between copies: 10 pixels across, split 5 and 5 around each 10-pixel copy.
        let spaced = try Self.render(WatermarkOptions(opacity: 1, position: .replicate, x: 10))
        for x in 0..<100 { #expect(spaced[x, 3] == ((5..<15).contains(x % 20) ? Self.red : Self.grey), "column \(x)") }
    }

    @Test func scaleFitsTheWatermarkInAFractionOfTheResult() throws {
        // 0.5 of 100 × 80 is 50 × 40: a 10 × 10 watermark becomes 40 × 40, centred at (30, 20).
        let image = try Self.render(WatermarkOptions(opacity: 1, position: .compass(.center), scale: 0.5))
        #expect(Self.corner(image)! == (30, 20))
        #expect(image[69, 59] == Self.red && image[70, 59] == Self.grey && image[69, 60] == Self.grey)
    }

    @Test func theWatermarkIsDrawnOverPaddingAndKeepsAlpha() throws {
        let padded = try Self.render(WatermarkOptions(opacity: 1, position: .compass(.southEast))) {
            $0.padding = .init(top: 10, right: 10, bottom: 10, left: 10)
        }
        #expect(padded.width == 120 && padded.height == 100 && Self.corner(padded)! == (110, 90))
        // A transparent source: where the watermark is, its alpha; elsewhere still transparent.
        let clear = Fixtures.image(width: 20, height: 20, channels: 4) { _, _ in [0, 0, 0, 0] }
        let half = WatermarkImage(pixels: Fixtures.image(width: 4, height: 4, channels: 4) { _, _ in [255, 0, 0, 128] })
        let image = try Self.render(WatermarkOptions(opacity: 1, position: .compass(.northWest)), image: half, source: clear)
        #expect(image[0, 0] == [255, 0, 0, 128] && image[5, 5] == [0, 0, 0, 0])
    }
}
