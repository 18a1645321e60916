import Foundation
import SeededRandom
import Testing
@testable import ImageDecode

/// `PlanRenderer`: a plan and effects rendered into pixels. Inputs are synthetic images written as PNG
/// (lossless, so pixels are known) and the committed EXIF orientation fixtures.
@Suite struct PlanRendererTests {
    static func png(_ image: PixelBuffer) throws -> EncodedImage {
        .data(try ImageEncoder.encode(image, as: .png))
    }

    static func geometry(_ edit: (inout GeometryOptions) -> Void) -> GeometryOptions {
        var options = GeometryOptions()
        edit(&options)
        return options
    }

    static func render(_ input: EncodedImage, _ geometry: GeometryOptions, effects: RenderEffects = RenderEffects(),
                       sourceWidth: Int, sourceHeight: Int) throws -> (PixelBuffer, ProcessingPlan) {
        let plan = ProcessingPlan(sourceWidth: sourceWidth, sourceHeight: sourceHeight, geometry: geometry)
        return (try PlanRenderer().render(from: input, plan: plan, effects: effects), plan)
    }

    /// Each case's geometry, named as imgproxy would spell it.
    static let sizeCases: [(String, GeometryOptions)] = [
        ("rs:fit:100:100", geometry { $0.width = 100; $0.height = 100 }),
        ("rs:fill:100:100", geometry { $0.resizingType = .fill; $0.width = 100; $0.height = 100 }),
        ("rs:fill:150:40/g:soea", geometry { $0.resizingType = .fill; $0.width = 150; $0.height = 40; $0.gravity = .compass(.southEast) }),
        ("rs:fill-down:600:200", geometry { $0.resizingType = .fillDown; $0.width = 600; $0.height = 200 }),
        ("rs:force:120:50", geometry { $0.resizingType = .force; $0.width = 120; $0.height = 50 }),
        ("rs:auto:100:200", geometry { $0.resizingType = .auto; $0.width = 100; $0.height = 200 }),
        ("rs:fit:500:500:1 (enlarge)", geometry { $0.width = 500; $0.height = 500; $0.enlarge = true }),
        ("c:0.5:0.5/rs:fit:90:90", geometry { $0.cropWidth = 0.5; $0.cropHeight = 0.5; $0.width = 90; $0.height = 90 }),
        ("c:150:100:nowe", geometry { $0.cropWidth = 150; $0.cropHeight = 100; $0.cropGravity = .compass(.northWest) }),
        ("rs:fit:200:200/ex:1:no", geometry { $0.width = 200; $0.height = 200; $0.extend = true; $0.extendGravity = .compass(.north) }),
        ("rs:fill:100:100/exar:1", geometry { $0.resizingType = .fill; $0.width = 100; $0.height = 100; $0.extendAspectRatio = true }),
        ("rs:fit:100:100/pd:5:10:15:20", geometry { $0.width = 100; $0.height = 100; $0.padding = .init(top: 5, right: 10, bottom: 15, left: 20) }),
        ("rs:fill:60:40/dpr:2", geometry { $0.resizingType = .fill; $0.width = 60; $0.height = 40; $0.dpr = 2 }),
        ("rs:fill:100:50/rot:90", geometry { $0.resizingType = .fill; $0.width = 100; $0.height = 50; $0.rotate = 90 }),
        ("rs:fill:100:100/g:sm", geometry { $0.resizingType = .fill; $0.width = 100; $0.height = 100; $0.gravity = .smart }),
        ("rs:fill:80:100/g:entropy", geometry { $0.resizingType = .fill; $0.width = 80; $0.height = 100; $0.gravity = .entropy }),
        ("c:200:200:sm/rs:fit:50:50", geometry { $0.cropWidth = 200; $0.cropHeight = 200; $0.cropGravity = .smart; $0.width = 50; $0.height = 50 }),
        ("z:1.5/rs:fit:100:0", geometry { $0.width = 100; $0.zoomX = 1.5; $0.zoomY = 1.5 }),
    ]

    @Test(arguments: sizeCases.indices)
    func resultHasThePlansSize(_ index: Int) throws {
        let (name, options) = Self.sizeCases[index]
        let source = Fixtures.stripes(width: 400, height: 300)
        let (image, plan) = try Self.render(try Self.png(source), options, sourceWidth: 400, sourceHeight: 300)
        #expect(image.width == plan.resultWidth && image.height == plan.resultHeight,
                "\(name): \(image.width)x\(image.height), plan \(plan.resultWidth)x\(plan.resultHeight)")
    }

    /// Red top-left quadrant, blue bottom-right, grey elsewhere.
    static let quadrants = Fixtures.image(width: 200, height: 200, channels: 3) { x, y in
        if x < 100 && y < 100 { return [255, 0, 0] }
        if x >= 100 && y >= 100 { return [0, 0, 255] }
        return [128, 128, 128]
    }

    @Test func gravityPicksTheCorner() throws {
        let input = try Self.png(Self.quadrants)
        for (point, colour) in [(Gravity.CompassPoint.northWest, [UInt8]([255, 0, 0])), (.southEast, [0, 0, 255])] {
            // The crop option, before scaling: a 100 px corner of the source.
            let (cropped, _) = try Self.render(input, Self.geometry {
                $0.cropWidth = 100; $0.cropHeight = 100; $0.cropGravity = .compass(point)
            }, sourceWidth: 200, sourceHeight: 200)
            #expect(cropped.width == 100 && cropped[50, 50] == colour, "crop \(point)")
            // The result crop, after scaling 200 → 100: a 100×25 strip, top or bottom.
            let (strip, _) = try Self.render(input, Self.geometry {
                $0.resizingType = .fill; $0.width = 100; $0.height = 25; $0.gravity = .compass(point)
            }, sourceWidth: 200, sourceHeight: 200)
            #expect(strip.width == 100 && strip.height == 25)
            #expect(strip[point == .northWest ? 25 : 75, 12] == colour, "fill \(point)")
        }
    }

    @Test func smartGravityFindsTheDetail() throws {
        // Flat grey with one saturated, edgy patch near the right edge: attention must move the crop there.
        let source = Fixtures.image(width: 400, height: 200, channels: 3) { x, y in
            if x >= 330 && x < 390 && y >= 70 && y < 130 { return (x / 6 + y / 6) % 2 == 0 ? [230, 30, 30] : [250, 200, 40] }
            return [120, 120, 120]
        }
        let (image, _) = try Self.render(try Self.png(source), Self.geometry {
            $0.resizingType = .fill; $0.width = 100; $0.height = 100; $0.gravity = .smart
        }, sourceWidth: 400, sourceHeight: 200)
        let saturated = stride(from: 0, to: image.pixels.count, by: 3).filter { image.pixels[$0] > 200 }.count
        #expect(saturated > 100, "the crop missed the patch (\(saturated) saturated pixels)")
    }

    @Test func extendAndPaddingAreTheBackground() throws {
        let green = Fixtures.image(width: 100, height: 50, channels: 3) { _, _ in [0, 200, 0] }
        let options = Self.geometry {
            $0.width = 100; $0.height = 100; $0.extend = true; $0.extendGravity = .compass(.north)
            $0.padding = .init(top: 10, right: 10, bottom: 10, left: 10)
        }
        let (filled, _) = try Self.render(try Self.png(green), options,
                                          effects: RenderEffects(background: RGBColor(red: 255, green: 0, blue: 0)),
                                          sourceWidth: 100, sourceHeight: 50)
        #expect(filled.width == 120 && filled.height == 120 && filled.channels == 3)
        #expect(filled[5, 5] == [255, 0, 0])      // padding
        #expect(filled[60, 100] == [255, 0, 0])   // extended below the image (north gravity)
        #expect(filled[60, 30] == [0, 200, 0])    // the image
        let (clear, _) = try Self.render(try Self.png(green), options, sourceWidth: 100, sourceHeight: 50)
        #expect(clear.channels == 4 && clear[5, 5][3] == 0 && clear[60, 100][3] == 0 && clear[60, 30] == [0, 200, 0, 255])
    }

    @Test func backgroundFlattensTransparency() throws {
        let half = Fixtures.image(width: 40, height: 40, channels: 4) { x, _ in x < 20 ? [0, 0, 0, 0] : [0, 0, 255, 255] }
        let (image, _) = try Self.render(try Self.png(half), GeometryOptions(),
                                         effects: RenderEffects(background: RGBColor(red: 10, green: 20, blue: 30)),
                                         sourceWidth: 40, sourceHeight: 40)
        #expect(image.channels == 3 && image[5, 5] == [10, 20, 30] && image[30, 5] == [0, 0, 255])
    }

    /// Black | grey 200 (blur) or 60 | 180 (sharpen, which needs room to overshoot), split at x = 20.
    static func edge(_ left: UInt8, _ right: UInt8) -> PixelBuffer {
        Fixtures.image(width: 40, height: 20, channels: 3) { x, _ in x < 20 ? [left, left, left] : [right, right, right] }
    }

    @Test func blurSoftensAndSharpenSteepensAnEdge() throws {
        let (blurred, _) = try Self.render(try Self.png(Self.edge(0, 200)), GeometryOptions(),
                                           effects: RenderEffects(blur: 2), sourceWidth: 40, sourceHeight: 20)
        #expect(Int(blurred[20, 10][0]) - Int(blurred[19, 10][0]) < 100, "blur kept a hard edge")
        #expect(blurred[0, 10][0] == 0 && blurred[39, 10][0] == 200, "blur reached the far sides")

        let source = Self.edge(60, 180)
        let (sharpened, _) = try Self.render(try Self.png(source), GeometryOptions(),
                                             effects: RenderEffects(sharpen: 1), sourceWidth: 40, sourceHeight: 20)
        let before = Int(source[20, 10][0]) - Int(source[19, 10][0])
        let after = Int(sharpened[20, 10][0]) - Int(sharpened[19, 10][0])
        #expect(after > before, "sharpen did not raise the edge's contrast (\(before) → \(after))")
        #expect(sharpened[0, 10][0] == 60 && sharpened[39, 10][0] == 180, "sharpen changed flat areas")
    }

    @Test func pixelateMakesUniformBlocks() throws {
        var random = SplitMix64(seed: 7)
        let noise = Fixtures.image(width: 60, height: 44, channels: 3) { _, _ in
            [UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random)]
        }
        let (image, _) = try Self.render(try Self.png(noise), GeometryOptions(), effects: RenderEffects(pixelate: 8),
                                         sourceWidth: 60, sourceHeight: 44)
        var distinctBlocks = Set<[UInt8]>()
        for blockY in stride(from: 0, to: 44, by: 8) {
            for blockX in stride(from: 0, to: 60, by: 8) {
                let first = image[blockX, blockY]
                distinctBlocks.insert(first)
                for y in blockY..<min(blockY + 8, 44) {
                    for x in blockX..<min(blockX + 8, 60) where image[x, y] != first {
                        Issue.record("block at \(blockX),\(blockY) is not uniform at \(x),\(y)")
                        return
                    }
                }
            }
        }
        #expect(distinctBlocks.count > 10, "blocks should keep their own means")
    }

    @Test func aHalfSizeCopyRendersTheSameImage() throws {
        let original = Fixtures.stripes(width: 400, height: 300, period: 90)
        let copy = Fixtures.resize(original, to: 200, 150)
        let cases = [
            Self.geometry { $0.resizingType = .fill; $0.width = 100; $0.height = 100; $0.gravity = .compass(.northWest) },
            Self.geometry { $0.resizingType = .fill; $0.width = 120; $0.height = 60; $0.gravity = .compass(.east, x: 10, y: 0) },
            Self.geometry { $0.cropWidth = 0.5; $0.cropHeight = 0.5; $0.cropGravity = .compass(.southEast); $0.width = 80; $0.height = 80 },
        ]
        for options in cases {
            let (fromOriginal, plan) = try Self.render(try Self.png(original), options, sourceWidth: 400, sourceHeight: 300)
            let fromCopy = try PlanRenderer().render(from: try Self.png(copy), plan: plan)
            let difference = Fixtures.meanAbsoluteDifference(fromOriginal, fromCopy)
            #expect(difference < 1, "mean difference \(difference) for \(options)")
        }
    }

    /// Reading only the crop (with its margin) gives the pixels of resizing the whole image and cutting after.
    @Test func aCropMatchesResizingTheWholeThenCutting() throws {
        let original = Fixtures.stripes(width: 400, height: 300, period: 37)
        let whole = Fixtures.resize(original, to: 133, 100)
        for (point, x) in [(Gravity.CompassPoint.west, 0), (.center, 17), (.east, 33)] {
            let (image, plan) = try Self.render(try Self.png(original), Self.geometry {
                $0.resizingType = .fill; $0.width = 100; $0.height = 100; $0.gravity = .compass(point)
            }, sourceWidth: 400, sourceHeight: 300)
            #expect(plan.scaledWidth == 133 && plan.resultCrop.x == x)
            let difference = Fixtures.meanAbsoluteDifference(image, whole.cropped(x: x, y: 0, width: 100, height: 100))
            #expect(difference < 0.05, "\(point): mean difference \(difference)")
        }
    }

    @Test func exifOrientationAndRotateCompose() throws {
        let upright = try EncodedImage.data(Fixtures.data("orientation/Landscape_1.jpg"))
        let rotated = try EncodedImage.data(Fixtures.data("orientation/Landscape_6.jpg"))
        let info = try ImageDecoder.probe(upright)
        let stored = try ImageDecoder.probe(rotated)
        #expect(stored.orientation == .rotate90 && stored.orientedWidth == info.width)
        for degrees in [0, 90, 180, 270] {
            let plan = ProcessingPlan(sourceWidth: info.width, sourceHeight: info.height, geometry: Self.geometry {
                $0.resizingType = .fill; $0.width = 40; $0.height = 30; $0.rotate = degrees
            })
            let a = try PlanRenderer().render(from: upright, plan: plan)
            let b = try PlanRenderer().render(from: rotated, plan: plan)
            #expect(a.width == plan.resultWidth && b.width == plan.resultWidth && b.height == plan.resultHeight)
            #expect(Fixtures.meanAbsoluteDifference(a, b) < 6, "rot:\(degrees)")
        }
        // rot:90 on the upright image is the upright image turned clockwise: its top-left comes from the bottom-left.
        let plain = try PlanRenderer().render(from: upright, plan: ProcessingPlan(sourceWidth: info.width, sourceHeight: info.height,
                                                                                   geometry: GeometryOptions()))
        let turned = try PlanRenderer().render(from: upright, plan: ProcessingPlan(
            sourceWidth: info.width, sourceHeight: info.height, geometry: Self.geometry { $0.rotate = 90 }))
        #expect(turned.width == plain.height && turned.height == plain.width)
        #expect(turned[0, 0] == plain[0, plain.height - 1] && turned[turned.width - 1, 0] == plain[0, 0])
    }

    @Test func orientationsComposeAsTransforms() {
        for first in Orientation.allCases {
            for next in [Orientation.identity, .rotate90, .rotate180, .rotate270] {
                let image = Fixtures.image(width: 3, height: 2, channels: 3) { x, y in [UInt8(x), UInt8(y), 0] }
                #expect(first.followed(by: next).apply(to: image) == next.apply(to: first.apply(to: image)), "\(first) then \(next)")
            }
        }
    }

    @Test func maxBytesLowersQualityUntilItFits() throws {
        var random = SplitMix64(seed: 11)
        let noise = Fixtures.image(width: 160, height: 160, channels: 3) { x, y in
            [UInt8(truncatingIfNeeded: x * 3 + Int.random(in: 0...60, using: &random)), UInt8(truncatingIfNeeded: y * 2), 90]
        }
        let full = try EncodeSettings(format: .jpeg, quality: 90).encode(noise)
        let limit = full.data.count / 2
        let fitted = try EncodeSettings(format: .jpeg, quality: 90, maxBytes: limit).encode(noise)
        #expect(fitted.data.count <= limit && fitted.quality < 90, "\(fitted.data.count) bytes at q\(fitted.quality)")
        let atFloor = try EncodeSettings(format: .jpeg, quality: 90, maxBytes: 10).encode(noise)
        #expect(atFloor.quality <= EncodeSettings.maxBytesQualityFloor && atFloor.data.count > 10)
        let png = try EncodeSettings(format: .png, quality: 90, maxBytes: 10).encode(noise)
        #expect(png.quality == 90)
    }

    /// One estimate for thumbnails and processing URLs alike: a canvas (padding, extend) is charged only to the
    /// plans that make one, so a plain resize (every thumbnail) reserves its read copies and encoder buffer alone.
    @Test func theEstimateChargesACanvasOnlyToPlansWithOne() throws {
        let input = try Self.png(Fixtures.stripes(width: 400, height: 300))
        let plain = ProcessingPlan(sourceWidth: 400, sourceHeight: 300, geometry: Self.geometry { $0.width = 200; $0.height = 200 })
        let padded = ProcessingPlan(sourceWidth: 400, sourceHeight: 300, geometry: Self.geometry {
            $0.width = 200; $0.height = 200; $0.padding = .init(top: 10, right: 10, bottom: 10, left: 10)
        })
        let plainBytes = try PlanRenderer().workingMemory(for: input, plan: plain)
        let paddedBytes = try PlanRenderer().workingMemory(for: input, plan: padded)
        // The same 200×150 read; the padded plan adds its 220×170 RGBA canvas, and the encoder gets that instead.
        #expect(paddedBytes - plainBytes == 220 * 170 * 4 + (220 * 170 - 200 * 150) * 4)
    }

    @Test func workingMemoryIsCheckedBeforeDecoding() throws {
        let input = try Self.png(Fixtures.stripes(width: 400, height: 300))
        let plan = ProcessingPlan(sourceWidth: 400, sourceHeight: 300, geometry: Self.geometry { $0.width = 200; $0.height = 200 })
        let needed = try PlanRenderer().workingMemory(for: input, plan: plan)
        #expect(needed > 200 * 150 * 3)
        #expect(throws: ImageDecodeError.overMemoryBudget(needed: needed, limit: needed - 1)) {
            try PlanRenderer().render(from: input, plan: plan, limits: RenderLimits(maxDecodeMemory: needed - 1))
        }
    }
}
