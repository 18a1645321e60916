import Foundation
import Testing
@testable import ImageDecode

/// imgproxy's `trim` (processing/trim_test.go's tables and images), found by `TrimFinder` and rendered: the
/// plan is made against the trimmed source.
@Suite struct TrimFinderTests {
    /// trim_test.go: file, options, the result's size.
    static let imgproxyCases: [(file: String, options: TrimOptions, width: Int, height: Int)] = [
        ("trim1.png", TrimOptions(threshold: 5), 320, 220),
        ("trim1.png", TrimOptions(threshold: 100), 290, 190),
        ("trim1.png", TrimOptions(threshold: 150), 260, 160),
        ("trim1.png", TrimOptions(threshold: 200), 230, 130),
        ("trim1.png", TrimOptions(threshold: 220), 200, 100),
        ("trim1.png", TrimOptions(threshold: 0, color: RGBColor(red: 255, green: 0, blue: 0)), 350, 250),
        ("trim1.png", TrimOptions(threshold: 5, equalHorizontal: true), 330, 220),
        ("trim1.png", TrimOptions(threshold: 5, equalVertical: true), 320, 230),
        ("trim1.png", TrimOptions(threshold: 5, equalHorizontal: true, equalVertical: true), 330, 230),
        ("trim2.png", TrimOptions(threshold: 1), 200, 170),
        ("trim2.png", TrimOptions(threshold: 1, color: RGBColor(red: 255, green: 0, blue: 0)), 200, 170),
        ("trim2.png", TrimOptions(threshold: 1, color: RGBColor(red: 0, green: 0, blue: 255)), 200, 130),
        ("trim2.png", TrimOptions(threshold: 1, color: RGBColor(red: 255, green: 255, blue: 255)), 200, 200),
        ("trim3.png", TrimOptions(threshold: 1, color: RGBColor(red: 255, green: 0, blue: 255)), 200, 130),
    ]

    static func input(_ file: String) throws -> EncodedImage { .data(try Fixtures.data("imgproxy/\(file)")) }

    /// The size imgproxy's render has, from a plan made against the trimmed source.
    @Test(arguments: imgproxyCases.indices)
    func imgproxysTrimCases(_ index: Int) throws {
        let item = Self.imgproxyCases[index]
        let input = try Self.input(item.file)
        let info = try ImageDecoder.probe(input)
        let bounds = try TrimFinder.bounds(of: input, options: item.options)
        let size = bounds.map { ($0.width, $0.height) } ?? (info.width, info.height)
        #expect(size == (item.width, item.height), "\(item.file) \(item.options)")
        let plan = ProcessingPlan(sourceWidth: size.0, sourceHeight: size.1, geometry: GeometryOptions(), trim: bounds)
        let image = try PlanRenderer().render(from: input, plan: plan)
        #expect(image.width == item.width && image.height == item.height)
    }

    /// The trimmed render is the source's rectangle, pixel for pixel (libvips: find_trim then extract_area gives
    /// left 10, top 10 for trim1.png at threshold 5).
    @Test func theTrimmedRenderIsTheSourcesRectangleExactly() throws {
        let input = try Self.input("trim1.png")
        let bounds = try #require(try TrimFinder.bounds(of: input, options: TrimOptions(threshold: 5)))
        #expect(bounds == ProcessingPlan.Rect(x: 10, y: 10, width: 320, height: 220))
        let source = try ImageDecoder.decode(try Fixtures.data("imgproxy/trim1.png"))
        let plan = ProcessingPlan(sourceWidth: 320, sourceHeight: 220, geometry: GeometryOptions(), trim: bounds)
        let image = try PlanRenderer().render(from: input, plan: plan)
        #expect(image == source.cropped(x: 10, y: 10, width: 320, height: 220))
    }

    /// A resize after a trim scales the trimmed source: its edges are the rectangle's, not the border's.
    @Test func aResizeScalesTheTrimmedSource() throws {
        let input = try Self.input("trim1.png")
        let bounds = try #require(try TrimFinder.bounds(of: input, options: TrimOptions(threshold: 5)))
        var geometry = GeometryOptions()
        (geometry.width, geometry.height) = (160, 160)
        let plan = ProcessingPlan(sourceWidth: bounds.width, sourceHeight: bounds.height, geometry: geometry, trim: bounds)
        let image = try PlanRenderer().render(from: input, plan: plan)
        #expect(image.width == 160 && image.height == 110)
        let whole = try PlanRenderer().render(from: .data(try ImageEncoder.encode(
            try ImageDecoder.decode(try Fixtures.data("imgproxy/trim1.png")).cropped(x: 10, y: 10, width: 320, height: 220), as: .png)),
            plan: ProcessingPlan(sourceWidth: 320, sourceHeight: 220, geometry: geometry))
        #expect(image == whole, "the trimmed render is the render of the cut-out image")
    }

    @Test func nothingIsTrimmedWhenEveryPixelOrNoPixelIsBorder() throws {
        let plain = Fixtures.image(width: 40, height: 30, channels: 3) { _, _ in [90, 90, 90] }
        let input = EncodedImage.data(try ImageEncoder.encode(plain, as: .png))
        #expect(try TrimFinder.bounds(of: input, options: TrimOptions()) == nil, "all border: imgproxy keeps the image")
        #expect(try TrimFinder.bounds(of: input, options: TrimOptions(color: RGBColor(red: 255, green: 255, blue: 255))) == nil,
                "no border")
    }

    /// A lone differing pixel (or a 2×2 block: at most 4 of 9 in any window) is noise to the 3×3 median, as to
    /// libvips's find_trim; a 3×3 block is kept whole (`vips find_trim` on the same image: 5 8 3 3).
    @Test func theMedianIgnoresALonePixel() throws {
        let speck = Fixtures.image(width: 20, height: 20, channels: 3) { x, y in x == 5 && y == 5 ? [0, 0, 0] : [255, 255, 255] }
        #expect(try TrimFinder.bounds(of: .data(try ImageEncoder.encode(speck, as: .png)), options: TrimOptions()) == nil)
        let small = Fixtures.image(width: 20, height: 20, channels: 3) { x, y in (5...6).contains(x) && (8...9).contains(y) ? [0, 0, 0] : [255, 255, 255] }
        #expect(try TrimFinder.bounds(of: .data(try ImageEncoder.encode(small, as: .png)), options: TrimOptions()) == nil)
        let block = Fixtures.image(width: 20, height: 20, channels: 3) { x, y in (5...7).contains(x) && (8...10).contains(y) ? [0, 0, 0] : [255, 255, 255] }
        #expect(try TrimFinder.bounds(of: .data(try ImageEncoder.encode(block, as: .png)), options: TrimOptions())
            == ProcessingPlan.Rect(x: 5, y: 8, width: 3, height: 3))
    }

    @Test func anAnimationIsTrimmedByItsFirstFrame() throws {
        // Its first frame as a still: the still an animation becomes when it is not kept animated.
        let data = try Fixtures.data("webp/animated.webp")
        let first = try ImageEncoder.encode(try ImageDecoder.decode(data), as: .png)
        #expect(try TrimFinder.bounds(of: .data(data), options: TrimOptions(threshold: 0))
            == TrimFinder.bounds(of: .data(first), options: TrimOptions(threshold: 0)))
    }
}
