/// Animations through the one renderer: each composited frame is read as an image (`FrameRowDecoder`) by the same
/// `render(_:plan:effects:)`, so resize, crop, gravity, effects, canvas and watermark are those of a still.
extension PlanRenderer {
    /// Renders up to `limits.maxAnimationFrames` frames of `input` (an animated GIF or WebP: `ImageInfo.isAnimated`)
    /// with `plan`. A smart or entropy gravity is decided once, on the first frame, and every later frame is cut at
    /// the same place, so the crop does not jump about. `trim` is not applied (imgproxy turns it off for animations
    /// too): `plan.trim` must be nil. The limits are checked from the header before any frame is decoded:
    /// `AnimationDecoder.checkPixels` and `workingMemory(forAnimation:...)`.
    public func renderAnimation(from input: EncodedImage, plan: ProcessingPlan, effects: RenderEffects = RenderEffects(),
                                autoRotate: Bool = true, limits: RenderLimits = RenderLimits(),
                                cancellation: RenderCancellation? = nil) throws(ImageDecodeError) -> RenderedAnimation {
        try AnimationDecoder.withFrames(for: input) { (source, info) throws(ImageDecodeError) in
            let taken = try Self.checkAnimation(source, plan: plan, effects: effects, autoRotate: autoRotate, info: info, limits: limits)
            var plan = plan
            var frames = [PixelBuffer](), delays = [Int]()
            frames.reserveCapacity(taken)
            while frames.count < taken, let frame = try source.nextFrame() {
                try cancellation.check()
                let decoder = FrameRowDecoder(frame.canvas, info: info)
                let reader = RegionReader(input: .frame(decoder), transform: Orientation(plan.geometry), bounds: nil,
                                          autoRotate: autoRotate, limits: limits, convertToSRGB: false, cancellation: cancellation)
                let rendered = try render(reader, plan: plan, effects: effects)
                plan = rendered.plan  // the detected crop, kept for every later frame
                frames.append(rendered.image)
                delays.append(RenderedAnimation.playable(delay: frame.delay))
            }
            return RenderedAnimation(frames: frames, delays: delays, loopCount: source.loopCount)
        }
    }

    /// The memory `renderAnimation` will use, from the header: the source's compositing canvases, one frame's
    /// render (as `workingMemory(for:plan:...)` counts a still's), every rendered frame kept for the encoder, and the
    /// encoder's own copies. Throws what `renderAnimation` would refuse for.
    public func workingMemory(forAnimation input: EncodedImage, plan: ProcessingPlan, effects: RenderEffects = RenderEffects(),
                              autoRotate: Bool = true, limits: RenderLimits = RenderLimits()) throws(ImageDecodeError) -> Int {
        try AnimationDecoder.withFrames(for: input) { (source, info) throws(ImageDecodeError) in
            let taken = try Self.checkAnimation(source, plan: plan, effects: effects, autoRotate: autoRotate, info: info, limits: limits)
            return try Self.animationMemory(source, frames: taken, plan: plan, effects: effects, autoRotate: autoRotate,
                                            info: info, limits: limits)
        }
    }

    /// The frames taken, after the pixel and memory limits are checked.
    private static func checkAnimation(_ source: any FrameSource, plan: ProcessingPlan, effects: RenderEffects, autoRotate: Bool,
                                       info: ImageInfo, limits: RenderLimits) throws(ImageDecodeError) -> Int {
        let taken = AnimationDecoder.framesTaken(source.frameCount, limits: limits)
        try AnimationDecoder.checkPixels(width: source.width, height: source.height, frames: taken, limits: limits)
        _ = try animationMemory(source, frames: taken, plan: plan, effects: effects, autoRotate: autoRotate, info: info, limits: limits)
        return taken
    }

    private static func animationMemory(_ source: any FrameSource, frames: Int, plan: ProcessingPlan, effects: RenderEffects,
                                        autoRotate: Bool, info: ImageInfo, limits: RenderLimits) throws(ImageDecodeError) -> Int {
        let shape = FrameRowDecoder(width: source.width, height: source.height, info: info)
        let reader = RegionReader(input: .frame(shape), transform: Orientation(plan.geometry), bounds: nil, autoRotate: autoRotate,
                                  limits: RenderLimits(maxPixels: .max, maxDecodeMemory: .max), convertToSRGB: false)
        let perFrame = try reader.checkedWorkingMemory(reading(plan), plan: plan, extra: { outputMemory(plan, effects, source: $0) })
        // The frame handed out (a copy of the canvas), the kept frames (RGBA), and the encoder's: a frame's palette
        // indices or libwebp's ARGB picture and its previous canvas.
        let result = plan.resultWidth * plan.resultHeight
        let needed = source.workingMemory + source.width * source.height * 4 + perFrame + frames * result * 4 + result * 12
        guard needed <= limits.maxDecodeMemory else { throw .overMemoryBudget(needed: needed, limit: limits.maxDecodeMemory) }
        return needed
    }
}
