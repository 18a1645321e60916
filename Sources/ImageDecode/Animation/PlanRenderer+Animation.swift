/// Animations through the one renderer: each composited frame is read as an image (`FrameRowDecoder`) by the same
/// `render(_:plan:effects:)`, so resize, crop, gravity, effects, canvas and watermark are those of a still. Frames
/// flow one way: each rendered frame goes to the writers (`AnimationWriter`) before the next is decoded, so an
/// animation is never held whole, whatever its length.
extension PlanRenderer {
    /// Renders up to `limits.maxAnimationFrames` frames of `input` (an animated GIF or WebP: `ImageInfo.isAnimated`)
    /// with `plan`, handing each to every one of `writers` as it is rendered (several: one render feeds the answer's
    /// format and a negotiated fallback's at once); the caller then asks each for its file
    /// (`AnimationWriter.finish(loopCount:)`, with the returned `loopCount`). A smart or entropy gravity is decided
    /// once, on the first frame, and every later frame is cut at the same place, so the crop does not jump about.
    /// `trim` is not applied (imgproxy turns it off for animations too): `plan.trim` must be nil. The limits are
    /// checked from the header before any frame is decoded: `AnimationDecoder.checkPixels` and the memory the
    /// frames' render and these writers hold (`workingMemory(forAnimation:...)`).
    public func renderAnimation(from input: EncodedImage, plan: ProcessingPlan, effects: RenderEffects = RenderEffects(),
                                autoRotate: Bool = true, limits: RenderLimits = RenderLimits(),
                                cancellation: RenderCancellation? = nil,
                                into writers: [any AnimationWriter]) throws(ImageDecodeError) -> RenderedAnimation {
        try AnimationDecoder.withFrames(for: input) { (source, info) throws(ImageDecodeError) in
            let taken = try Self.checkAnimation(source, plan: plan, effects: effects, autoRotate: autoRotate, info: info,
                                                limits: limits) { frames in
                writers.reduce(0) { $0 + $1.workingMemory(width: plan.resultWidth, height: plan.resultHeight, frames: frames) }
            }
            var framePlan = plan
            var rendered = RenderedAnimation(width: 0, height: 0, delays: [], loopCount: nil)
            rendered.delays.reserveCapacity(taken)
            while rendered.frameCount < taken, let frame = try source.nextFrame() {
                try cancellation.check()
                let decoder = FrameRowDecoder(frame.canvas, info: info)
                let reader = RegionReader(input: .frame(decoder), transform: Orientation(framePlan.geometry), bounds: nil,
                                          autoRotate: autoRotate, limits: limits, convertToSRGB: false, cancellation: cancellation)
                let result = try render(reader, plan: framePlan, effects: effects)
                framePlan = result.plan  // the detected crop, kept for every later frame
                let delay = RenderedAnimation.playable(delay: frame.delay)
                for writer in writers { try writer.add(result.image, delay: delay) }
                (rendered.width, rendered.height) = (result.image.width, result.image.height)
                rendered.delays.append(delay)
            }
            // Read last: a GIF may state its loop count after its first frame.
            rendered.loopCount = source.loopCount
            return rendered
        }
    }

    /// The memory `renderAnimation` will use, from the header: the source's compositing canvases, one frame's
    /// render (as `workingMemory(for:plan:...)` counts a still's), and what the writers of `formats` hold
    /// (`AnimationEncoder.workingMemory`: every format listed is written at once, as the answer's and a negotiated
    /// fallback's are). No rendered frame is kept: each goes to the writers before the next is decoded. Throws what
    /// `renderAnimation` would refuse for.
    public func workingMemory(forAnimation input: EncodedImage, plan: ProcessingPlan, effects: RenderEffects = RenderEffects(),
                              autoRotate: Bool = true, limits: RenderLimits = RenderLimits(),
                              formats: [ImageFormat]) throws(ImageDecodeError) -> Int {
        try AnimationDecoder.withFrames(for: input) { (source, info) throws(ImageDecodeError) in
            let writers = { (frames: Int) in
                formats.reduce(0) {
                    $0 + AnimationEncoder.workingMemory(for: $1, width: plan.resultWidth, height: plan.resultHeight, frames: frames)
                }
            }
            let taken = try Self.checkAnimation(source, plan: plan, effects: effects, autoRotate: autoRotate, info: info,
                                                limits: limits, writers: writers)
            return try Self.animationMemory(source, frames: taken, plan: plan, effects: effects, autoRotate: autoRotate,
                                            info: info, limits: limits, writers: writers)
        }
    }

    /// The frames taken, after the pixel and memory limits are checked. `writers`: what the writers hold for a
    /// number of frames.
    private static func checkAnimation(_ source: any FrameSource, plan: ProcessingPlan, effects: RenderEffects, autoRotate: Bool,
                                       info: ImageInfo, limits: RenderLimits,
                                       writers: (Int) -> Int) throws(ImageDecodeError) -> Int {
        let taken = AnimationDecoder.framesTaken(source.frameCount, limits: limits)
        try AnimationDecoder.checkPixels(width: source.width, height: source.height, frames: taken, limits: limits)
        _ = try animationMemory(source, frames: taken, plan: plan, effects: effects, autoRotate: autoRotate, info: info,
                                limits: limits, writers: writers)
        return taken
    }

    private static func animationMemory(_ source: any FrameSource, frames: Int, plan: ProcessingPlan, effects: RenderEffects,
                                        autoRotate: Bool, info: ImageInfo, limits: RenderLimits,
                                        writers: (Int) -> Int) throws(ImageDecodeError) -> Int {
        let shape = FrameRowDecoder(width: source.width, height: source.height, info: info)
        let reader = RegionReader(input: .frame(shape), transform: Orientation(plan.geometry), bounds: nil, autoRotate: autoRotate,
                                  limits: RenderLimits(maxPixels: .max, maxDecodeMemory: .max), convertToSRGB: false)
        let perFrame = try reader.checkedWorkingMemory(reading(plan), plan: plan, extra: { outputMemory(plan, effects, source: $0) })
        // The source's canvases, the frame handed out (a copy of the canvas), one frame's render (its result is what
        // the writers are given), and the writers' own.
        let needed = source.workingMemory + source.width * source.height * 4 + perFrame + writers(frames)
        guard needed <= limits.maxDecodeMemory else { throw .overMemoryBudget(needed: needed, limit: limits.maxDecodeMemory) }
        return needed
    }
}
