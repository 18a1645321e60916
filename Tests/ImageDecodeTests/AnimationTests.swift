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

    /// A render with its frames kept (`FrameCollector`), for a test to look at them.
    struct Rendered {
        var animation: RenderedAnimation
        var frames: [PixelBuffer]
        var delays: [Int] { animation.delays }
        var width: Int { animation.width }
        var height: Int { animation.height }
    }

    static func plan(_ data: Data, _ edit: (inout GeometryOptions) -> Void = { _ in }) throws -> ProcessingPlan {
        let info = try ImageDecoder.probe(data)
        var geometry = GeometryOptions()
        edit(&geometry)
        return ProcessingPlan(sourceWidth: info.width, sourceHeight: info.height, geometry: geometry)
    }

    static func render(_ data: Data, _ edit: (inout GeometryOptions) -> Void = { _ in }, effects: RenderEffects = RenderEffects(),
                       limits: RenderLimits = RenderLimits()) throws -> Rendered {
        let collector = FrameCollector()
        let animation = try PlanRenderer().renderAnimation(from: .data(data), plan: plan(data, edit), effects: effects,
                                                           limits: limits, into: [collector])
        #expect(collector.delays == animation.delays)
        return Rendered(animation: animation, frames: collector.frames)
    }

    /// Frames already rendered, written as `format`.
    static func encode(_ rendered: Rendered, as format: ImageFormat, quality: Int) throws -> Data {
        try AnimationEncoder.encode(rendered.frames, delays: rendered.delays, loopCount: rendered.animation.loopCount,
                                    as: format, quality: quality)
    }

    /// Red, green, blue full frames of 8x6 with delays 50, 70 and 0 ms (0 plays as 100), looping 3 times.
    static let rgb = CraftedAnimation.make(screen: (8, 6), frames: [
        Frame(rows: CraftedAnimation.solid(1, width: 8, height: 6), delay: 5),
        Frame(rows: CraftedAnimation.solid(2, width: 8, height: 6), delay: 7),
        Frame(rows: CraftedAnimation.solid(3, width: 8, height: 6), delay: 0),
    ], loop: 3)

    /// Frame 1 fills red; frame 2 draws a green 2x2 at (1,1) and asks to restore the previous canvas (3); frame 3
    /// draws a blue 1x1 at (0,0) and asks to be cleared to transparent (2); frame 4 draws nothing visible (its one
    /// pixel is the transparent index).
    static func disposals(loop: Int? = 0) -> Data {
        CraftedAnimation.make(screen: (4, 4), frames: [
            Frame(rows: CraftedAnimation.solid(1, width: 4, height: 4), disposal: 1),
            Frame(rows: CraftedAnimation.solid(2, width: 2, height: 2), x: 1, y: 1, disposal: 3),
            Frame(rows: [[3]], disposal: 2),
            Frame(rows: [[0]], x: 3, y: 3, transparentIndex: 0),
        ], loop: loop)
    }

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
        let data = try Self.encode(animation, as: format, quality: 90)
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
        let data = Self.disposals()
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
        let back = try Self.frames(try Self.encode(rendered, as: .gif, quality: 80)).frames
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

    @Test(arguments: [ImageFormat.gif, .webp])
    func memoryBudgetCountsTheWritersNotEveryFrame(_ format: ImageFormat) throws {
        let frames = Array(repeating: Frame(rows: CraftedAnimation.solid(1, width: 64, height: 64)), count: 40)
        let data = CraftedAnimation.make(screen: (64, 64), frames: frames)
        let plan = ProcessingPlan(sourceWidth: 64, sourceHeight: 64, geometry: GeometryOptions())
        let few = try PlanRenderer().workingMemory(forAnimation: .data(data), plan: plan, limits: RenderLimits(maxAnimationFrames: 2),
                                                   formats: [format])
        let all = try PlanRenderer().workingMemory(forAnimation: .data(data), plan: plan, formats: [format])
        // A frame more adds only its share of the file the writer grows, not a kept RGBA frame.
        let writer = { (frames: Int) in AnimationEncoder.workingMemory(for: format, width: 64, height: 64, frames: frames) }
        #expect(all - few == writer(40) - writer(2))
        #expect(all - few < 38 * (64 * 64 * 2 + 1_300))
        let writers = try AnimationEncoder.writer(for: format, quality: 80)
        #expect(throws: ImageDecodeError.overMemoryBudget(needed: all, limit: all - 1)) {
            try PlanRenderer().renderAnimation(from: .data(data), plan: plan, limits: RenderLimits(maxDecodeMemory: all - 1),
                                               into: [writers])
        }
        // The answer's format and a negotiated fallback's are written at once: both writers count.
        let both = try PlanRenderer().workingMemory(forAnimation: .data(data), plan: plan, formats: [.gif, .webp])
        let other: ImageFormat = format == .gif ? .webp : .gif
        #expect(both == all + AnimationEncoder.workingMemory(for: other, width: 64, height: 64, frames: 40))
    }

    /// Issue 32: a 380-frame animation (Muybridge's, in the corpus) held every rendered frame until the encoder ran.
    /// Now 370 frames more add at most the file's growth: for GIF its worst case (LZW's 12-bit codes, 1.5 bytes a
    /// pixel, and each frame's palette and records, in a buffer up to a quarter larger), for WebP the two copies of
    /// the lossy file libwebp keeps; under 2 bytes a pixel and 1.3 KB a frame either way, under 60 % of the RGBA
    /// frame each one used to keep.
    @Test(arguments: [ImageFormat.gif, .webp])
    func a380FrameEstimateGrowsByTheFileOnly(_ format: ImageFormat) throws {
        let frames = Array(repeating: Frame(rows: CraftedAnimation.solid(1, width: 100, height: 64)), count: 380)
        let data = CraftedAnimation.make(screen: (100, 64), frames: frames)
        let plan = ProcessingPlan(sourceWidth: 100, sourceHeight: 64, geometry: GeometryOptions())
        let memory = { (taken: Int) throws in
            try PlanRenderer().workingMemory(forAnimation: .data(data), plan: plan,
                                             limits: RenderLimits(maxAnimationFrames: taken), formats: [format])
        }
        let result = 100 * 64
        let growth = try memory(380) - memory(10)
        #expect(growth > 0)
        #expect(growth < 370 * (result * 2 + 1_300), "\(growth) bytes for 370 frames of \(result) pixels")
        #expect(growth < 370 * result * 4 * 6 / 10)
    }

    /// Frames go straight from the renderer to the encoders: one render feeds a GIF and a WebP writer at once, and
    /// both files decode to the frames, delays and loop count of the source.
    @Test func oneRenderFeedsEveryWriterFrameByFrame() throws {
        let gif = try AnimationEncoder.writer(for: .gif, quality: 80), webp = try AnimationEncoder.writer(for: .webp, quality: 90)
        let counter = FrameCollector()
        let rendered = try PlanRenderer().renderAnimation(from: .data(Self.rgb), plan: Self.plan(Self.rgb) { $0.width = 4; $0.height = 4 },
                                                          into: [gif, counter, webp])
        #expect(rendered == RenderedAnimation(width: 4, height: 3, delays: [50, 70, 100], loopCount: 3))
        #expect(counter.frames.count == 3 && counter.frames.allSatisfy { $0.width == 4 && $0.height == 3 })
        for (format, writer) in [(ImageFormat.gif, gif), (.webp, webp)] {
            let data = try writer.finish(loopCount: rendered.loopCount)
            #expect(ImageFormat.sniff(data) == format)
            let back = try Self.frames(data)
            #expect(back.frames.count == 3 && back.delays == [50, 70, 100] && back.loop == 3, "\(format)")
            for (frame, colour) in zip(back.frames, [Self.red, Self.green, Self.blue]) {
                #expect(zip(frame[1, 1], colour).allSatisfy { abs(Int($0) - Int($1)) <= 8 }, "\(format): \(frame[1, 1]) vs \(colour)")
            }
        }
    }

    /// The GIF writer decides a frame's disposal from the next frame (one frame of lookahead): a frame the next one
    /// clears a pixel of is cleared after it is shown (2), every other stays (1); the frames composite back exactly.
    @Test func streamedGIFDisposalsLookOneFrameAhead() throws {
        let data = Self.disposals(loop: nil)
        let writer = try AnimationEncoder.writer(for: .gif, quality: 80)
        let rendered = try PlanRenderer().renderAnimation(from: .data(data), plan: Self.plan(data), into: [writer])
        #expect(rendered.loopCount == nil)
        let out = try writer.finish(loopCount: rendered.loopCount)
        let records = GIFRecords(out)
        #expect(records.disposals == [1, 1, 2, 1], "frame 4 clears the blue pixel frame 3 showed")
        #expect(records.delays == [10, 10, 10, 10])
        #expect(records.loop == nil, "the source said nothing: played once, no NETSCAPE2.0 extension")
        #expect(try Self.frames(out).frames.map(\.pixels) == Self.frames(data).frames.map(\.pixels))
    }

    /// A loop count stated after the first frame (some encoders write it there) is the one written: the writers
    /// are given it at the end, after every frame was read.
    @Test(arguments: [ImageFormat.gif, .webp])
    func aLoopCountAfterTheFirstFrameIsKept(_ format: ImageFormat) throws {
        let first = CraftedAnimation.make(screen: (8, 6), frames: [Frame(rows: CraftedAnimation.solid(1, width: 8, height: 6))], loop: nil)
        let rest = CraftedAnimation.make(screen: (8, 6), frames: [Frame(rows: CraftedAnimation.solid(2, width: 8, height: 6)),
                                                                 Frame(rows: CraftedAnimation.solid(3, width: 8, height: 6))], loop: nil)
        let netscape = Data([0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, 7, 0, 0])
        let header = 6 + 7 + 12
        let data = first.dropLast() + netscape + rest.dropFirst(header)
        #expect(try Self.frames(data).loop == 7)
        let writer = try AnimationEncoder.writer(for: format, quality: 90)
        let rendered = try PlanRenderer().renderAnimation(from: .data(data), plan: Self.plan(data), into: [writer])
        #expect(rendered.loopCount == 7 && rendered.frameCount == 3)
        let out = try writer.finish(loopCount: rendered.loopCount)
        let back = try Self.frames(out)
        #expect(back.loop == 7 && back.frames.count == 3)
        if format == .gif { #expect(GIFRecords(out).loop == 7) }
    }

    /// `answerAnimation` writes a negotiated fallback from the same render (one render for two formats), and renders
    /// again only when a lossy file is over `max_bytes`, each try at the next lower quality: what it answers is
    /// what the frames, written at that quality, give.
    @Test func answersRenderOnceForTwoFormatsAndAgainOnlyForMaxBytes() throws {
        let plan = try Self.plan(Self.rgb) { $0.width = 4; $0.height = 4 }
        var renders = 0
        let render = { (writers: [any AnimationWriter]) throws(ImageDecodeError) -> RenderedAnimation in
            renders += 1
            return try PlanRenderer().renderAnimation(from: .data(Self.rgb), plan: plan, into: writers)
        }
        let info = try ImageDecoder.probe(Self.rgb)
        let both = try EncodeSettings(format: .webp, quality: 90).answerAnimation(sourceInfo: info, fallback: EncodeSettings(format: .gif),
                                                                                 render: render)
        #expect(renders == 1)
        #expect(both.frames == 3 && both.width == 4 && both.height == 3)
        let formats = Set([both.format, both.declined?.format])
        #expect(formats == [.webp, .gif], "one answered, the other kept as declined")
        let frames = try Self.render(Self.rgb) { $0.width = 4; $0.height = 4 }
        let webp = try Self.encode(frames, as: .webp, quality: 90), gif = try Self.encode(frames, as: .gif, quality: 80)
        #expect(Set([both.data, both.declined?.data]) == [webp, gif], "the same bytes as the frames written one format at a time")

        renders = 0
        let fitted = try EncodeSettings(format: .webp, quality: 90, maxBytes: 1).answerAnimation(sourceInfo: info, render: render)
        // 90 → 22 → 5: over 3x the limit each time, a quarter; the floor (10) is then passed, and that file answered.
        #expect(renders == 3)
        #expect(try fitted.data == Self.encode(frames, as: .webp, quality: 5))
        #expect(try EncodeSettings(format: .webp, quality: 90, maxBytes: 1).encode(frames: frames.frames, delays: frames.delays,
                                                                                  loopCount: 3).quality == 5)
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
        let webp = try Self.encode(try Self.render(Self.rgb), as: .webp, quality: 90)
        let info = try ImageDecoder.probe(webp)
        #expect(info.frameCount == 3 && info.isAnimated)
        let again = try Self.render(webp) { $0.width = 4 }
        #expect(again.frames.count == 3 && again.delays == [50, 70, 100])
        let gif = try Self.frames(try Self.encode(again, as: .gif, quality: 80))
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
        let webp = try Self.frames(try Self.encode(rendered, as: .webp, quality: 90))
        #expect(webp.frames.count == info.frameCount && webp.delays == rendered.delays)
    }
}
