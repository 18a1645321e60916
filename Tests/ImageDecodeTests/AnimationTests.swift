import Foundation
import Testing
@testable import ImageDecode

/// Animated GIF and WebP through `PlanRenderer.renderAnimation` and back out as GIF and WebP: frames, delays,
/// loop count and disposal survive (our output is decoded again and compared), and hostile animations are
/// refused or bounded from their header.
@Suite struct AnimationTests {
    typealias Frame = CraftedAnimation.Frame
    static let red: [UInt8] = [255, 0, 0, 255], green: [UInt8] = [0, 255, 0, 255], blue: [UInt8] = [0, 0, 255, 255]
    static let clear: [UInt8] = [0, 0, 0, 0]

    /// Every composited frame of `data`, with delays (ms) and the loop count.
    static func frames(_ data: Data) throws -> (frames: [PixelBuffer], delays: [Int], loop: Int?) {
        try AnimationDecoder.withFrames(for: .data(data)) { (source, _) throws(ImageDecodeError) in
            var frames = [PixelBuffer](), delays = [Int]()
            while let frame = try source.nextFrame() {
                frames.append(frame.canvas)
                delays.append(frame.delay)
            }
            return (frames, delays, source.loopCount)
        }
    }

    static func render(_ data: Data, _ edit: (inout GeometryOptions) -> Void = { _ in }, effects: RenderEffects = RenderEffects(),
                       limits: RenderLimits = RenderLimits()) throws -> RenderedAnimation {
        let info = try ImageDecoder.probe(data)
        var geometry = GeometryOptions()
        edit(&geometry)
        let plan = ProcessingPlan(sourceWidth: info.width, sourceHeight: info.height, geometry: geometry)
        return try PlanRenderer().renderAnimation(from: .data(data), plan: plan, effects: effects, limits: limits)
    }

    /// Red, green, blue full frames of 8x6 with delays 50, 70 and 0 ms (0 plays as 100), looping 3 times.
    static let rgb = CraftedAnimation.make(screen: (8, 6), frames: [
        Frame(rows: CraftedAnimation.solid(1, width: 8, height: 6), delay: 5),
        Frame(rows: CraftedAnimation.solid(2, width: 8, height: 6), delay: 7),
        Frame(rows: CraftedAnimation.solid(3, width: 8, height: 6), delay: 0),
    ], loop: 3)

    @Test func headerCountsGIFFrames() throws {
        let info = try ImageDecoder.probe(Self.rgb)
        #expect(info.frameCount == 3)
        #expect(info.isAnimated)
        #expect(try ImageDecoder.probe(CraftedGIF.make(rows: [[1]])).isAnimated == false)
    }

    @Test(arguments: [ImageFormat.gif, .webp])
    func framesDelaysAndLoopSurviveARoundTrip(_ format: ImageFormat) throws {
        let animation = try Self.render(Self.rgb) { $0.width = 4; $0.height = 4 }
        #expect(animation.frames.count == 3)
        #expect(animation.delays == [50, 70, 100])  // 0 ms plays as 100 ms
        #expect(animation.width == 4 && animation.height == 3)
        let data = try AnimationEncoder.encode(animation, as: format, quality: 90)
        #expect(ImageFormat.sniff(data) == format)
        let back = try Self.frames(data)
        #expect(back.frames.count == 3)
        #expect(back.delays == [50, 70, 100])
        #expect(back.loop == 3)
        for (frame, colour) in zip(back.frames, [Self.red, Self.green, Self.blue]) {
            let pixel = frame[1, 1]
            #expect(zip(pixel, colour).allSatisfy { abs(Int($0) - Int($1)) <= 8 }, "\(pixel) vs \(colour)")
        }
    }

    @Test func gifDisposalsCompositeAsBrowsersShowThem() throws {
        // Frame 1 fills red; frame 2 draws a green 2x2 at (1,1) and asks to restore the previous canvas (3); frame 3
        // draws a blue 1x1 at (0,0) and asks to be cleared to transparent (2); frame 4 draws nothing visible
        // (its one pixel is the transparent index).
        let data = CraftedAnimation.make(screen: (4, 4), frames: [
            Frame(rows: CraftedAnimation.solid(1, width: 4, height: 4), disposal: 1),
            Frame(rows: CraftedAnimation.solid(2, width: 2, height: 2), x: 1, y: 1, disposal: 3),
            Frame(rows: [[3]], disposal: 2),
            Frame(rows: [[0]], x: 3, y: 3, transparentIndex: 0),
        ])
        let frames = try Self.frames(data).frames
        #expect(frames.count == 4)
        #expect(frames[0][1, 1] == Self.red)
        #expect(frames[1][1, 1] == Self.green && frames[1][0, 0] == Self.red)
        #expect(frames[2][1, 1] == Self.red, "disposal 3 restored the canvas from before the green frame")
        #expect(frames[2][0, 0] == Self.blue)
        #expect(frames[3][0, 0] == Self.clear, "disposal 2 cleared the blue pixel to transparent")
        #expect(frames[3][3, 3] == Self.red, "a transparent index leaves the canvas")
        // Through the renderer and our GIF writer, the same canvases come back.
        let rendered = try Self.render(data)
        let back = try Self.frames(try AnimationEncoder.encode(rendered, as: .gif, quality: 80)).frames
        #expect(back.map { $0.pixels } == frames.map { $0.pixels })
    }

    @Test func framesOutsideTheCanvasAreClipped() throws {
        // A 1x1 canvas with a 300x200 frame, and a frame placed wholly outside it.
        let data = CraftedAnimation.make(screen: (1, 1), frames: [
            Frame(rows: CraftedAnimation.solid(2, width: 300, height: 200)),
            Frame(rows: CraftedAnimation.solid(3, width: 5, height: 5), x: 40, y: 40),
        ])
        let frames = try Self.frames(data).frames
        #expect(frames.count == 2)
        #expect(frames.allSatisfy { $0.width == 1 && $0.height == 1 })
        #expect(frames[0][0, 0] == Self.green && frames[1][0, 0] == Self.green)
        let rendered = try Self.render(data) { $0.width = 10; $0.height = 10 }
        #expect(rendered.frames.count == 2 && rendered.width == 1)
    }

    @Test func aCutFileKeepsTheFramesThatArrivedWhole() throws {
        let data = Self.rgb
        // Cut inside the third frame's data: two frames; cut inside the first: truncated.
        let third = data.count - 8
        let cut = try Self.frames(data.prefix(third))
        #expect(cut.frames.count == 2)
        let firstFrameData = 13 + 12 + 19 + 8 + 10 + 4
        #expect(throws: ImageDecodeError.truncated) { try Self.frames(data.prefix(firstFrameData)) }
    }

    @Test func frameLimitTakesTheFirstFramesOnly() throws {
        // 65,535 frames of 1x1: counted from the block structure, only the limit's worth decoded.
        let frames = Array(repeating: Frame(rows: [[1]], delay: 0), count: 65_535)
        let data = CraftedAnimation.make(screen: (1, 1), frames: frames)
        #expect(try ImageDecoder.probe(data).frameCount == 65_535)
        let rendered = try Self.render(data, limits: RenderLimits(maxAnimationFrames: 20))
        #expect(rendered.frames.count == 20)
        #expect(rendered.delays.allSatisfy { $0 == 100 })
    }

    @Test func pixelLimitCountsEveryFrameTaken() throws {
        // 8x6 x 3 frames = 144 pixels.
        #expect(throws: ImageDecodeError.animationTooLarge(width: 8, height: 6, frames: 3, limit: 100, perFrame: false)) {
            try Self.render(Self.rgb, limits: RenderLimits(maxPixels: 100))
        }
        // Two frames taken fit 100.
        #expect(try Self.render(Self.rgb, limits: RenderLimits(maxPixels: 100, maxAnimationFrames: 2)).frames.count == 2)
        // With a per-frame limit the total no longer counts, the frame does.
        #expect(try Self.render(Self.rgb, limits: RenderLimits(maxPixels: 100, maxAnimationFrameResolution: 48)).frames.count == 3)
        let error = #expect(throws: ImageDecodeError.self) {
            try Self.render(Self.rgb, limits: RenderLimits(maxAnimationFrameResolution: 47))
        }
        #expect(error == .animationTooLarge(width: 8, height: 6, frames: 3, limit: 47, perFrame: true))
        #expect(error?.description.contains("--max-animation-frame-resolution") == true)
    }

    @Test func memoryBudgetCountsEveryFrameKept() throws {
        let frames = Array(repeating: Frame(rows: CraftedAnimation.solid(1, width: 64, height: 64)), count: 40)
        let data = CraftedAnimation.make(screen: (64, 64), frames: frames)
        let plan = ProcessingPlan(sourceWidth: 64, sourceHeight: 64, geometry: GeometryOptions())
        let few = try PlanRenderer().workingMemory(forAnimation: .data(data), plan: plan, limits: RenderLimits(maxAnimationFrames: 2))
        let all = try PlanRenderer().workingMemory(forAnimation: .data(data), plan: plan)
        #expect(all - few == 38 * 64 * 64 * 4, "each rendered frame kept for the encoder is counted")
        #expect(throws: ImageDecodeError.overMemoryBudget(needed: all, limit: all - 1)) {
            try PlanRenderer().renderAnimation(from: .data(data), plan: plan, limits: RenderLimits(maxDecodeMemory: all - 1))
        }
    }

    @Test func smartCropIsDecidedOnTheFirstFrame() throws {
        // 12x4: the first frame has a detailed patch on the left, the second on the right. A 4x4 smart crop finds
        // the left one on frame 1 and keeps that place for frame 2 (which is plain red there).
        func patched(_ left: Bool) -> [[UInt8]] {
            (0..<4).map { (y: Int) -> [UInt8] in
                (0..<12).map { (x: Int) -> UInt8 in
                    let inPatch = left ? x < 4 : x >= 8
                    return inPatch ? UInt8(1 + (x + y) % 3) : 1
                }
            }
        }
        let data = CraftedAnimation.make(screen: (12, 4), frames: [Frame(rows: patched(true)), Frame(rows: patched(false))])
        let rendered = try Self.render(data) { $0.resizingType = .fill; $0.width = 4; $0.height = 4; $0.gravity = .smart }
        #expect(rendered.frames.count == 2)
        #expect(rendered.frames[0] != rendered.frames[1])
        let second = rendered.frames[1]
        #expect((0..<4).allSatisfy { x in (0..<4).allSatisfy { y in second[x, y] == Self.red } })
    }

    @Test func animatedWebPIsReadFrameByFrame() throws {
        let webp = try AnimationEncoder.encode(try Self.render(Self.rgb), as: .webp, quality: 90)
        let info = try ImageDecoder.probe(webp)
        #expect(info.frameCount == 3 && info.isAnimated)
        let again = try Self.render(webp) { $0.width = 4 }
        #expect(again.frames.count == 3 && again.delays == [50, 70, 100])
        let gif = try Self.frames(try AnimationEncoder.encode(again, as: .gif, quality: 80))
        #expect(gif.frames.count == 3 && gif.loop == 3)
    }

    @Test func stillGIFOutKeepsColoursAndTransparency() throws {
        let image = FormatTests.gradient(channels: 4)
        let data = try ImageEncoder.encode(image, as: .gif)
        #expect(ImageFormat.sniff(data) == .gif)
        let back = try ImageDecoder.decode(data)
        #expect(back.width == image.width && back.height == image.height && back.channels == 4)
        var worst = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let (a, b) = (image[x, y], back[x, y])
                #expect((a[3] < 128) == (b[3] == 0))
                if a[3] >= 128 { worst = max(worst, (0..<3).map { abs(Int(a[$0]) - Int(b[$0])) }.max()!) }
            }
        }
        #expect(worst <= 40, "dithered to 255 colours, every pixel within 40 levels")
        // Few colours are kept exactly.
        let flat = Fixtures.image(width: 5, height: 3, channels: 3) { x, _ in x < 2 ? [10, 20, 30] : [200, 100, 0] }
        #expect(try ImageDecoder.decode(try ImageEncoder.encode(flat, as: .gif)).pixels == flat.pixels)
    }

    @Test func anAVIFSequenceIsReadFrameByFrame() throws {
        let data = try Fixtures.data("avif/sequence.avif")
        let info = try ImageDecoder.probe(data)
        #expect(info.isAnimated && (info.frameCount ?? 0) > 1)
        let rendered = try Self.render(data) { $0.width = 16; $0.height = 16 }
        #expect(rendered.frames.count == info.frameCount)
        #expect(rendered.delays.allSatisfy { $0 > 0 })
        #expect(rendered.frames[0] != rendered.frames[rendered.frames.count - 1], "the frames differ")
        let webp = try Self.frames(try AnimationEncoder.encode(rendered, as: .webp, quality: 90))
        #expect(webp.frames.count == info.frameCount && webp.delays == rendered.delays)
    }
}
