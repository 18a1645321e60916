/// What one render may cost: refused from the header, before pixel memory exists.
public struct RenderLimits: Sendable, Hashable {
    /// About 7 s of one core of this project's 2-core benchmark machine for a blur (docs/benchmarks.md, "Effect
    /// work": 0.5–0.6 G operations a second): `bl:100` on a 1000×1000 result passes, on 1500×1500 it does not.
    public static let defaultMaxEffectWork = 4_000_000_000

    /// Sources with more pixels than this are refused (`ImageDecodeError.tooLarge`).
    public var maxPixels: Int
    /// The decoder's, resizer's and output buffers together (`PlanRenderer.workingMemory`); over it,
    /// `ImageDecodeError.overMemoryBudget`.
    public var maxDecodeMemory: Int
    /// The filters' and detectors' arithmetic, in operations (`RenderWork`): a processing URL over it is refused
    /// before its render starts, naming the option that costs most.
    public var maxEffectWork: Int

    /// Frames of an animation rendered (imgproxy's `IMGPROXY_MAX_ANIMATION_FRAMES`, whose default 1 turns animation
    /// off): later frames are dropped, as imgproxy loads only this many. 256 keeps a typical reaction GIF (2–10 s
    /// at 10–25 fps) whole, while the pixel limit still counts every frame taken (docs/processing.md, "Animation").
    public static let defaultMaxAnimationFrames = 256

    /// At most this many frames of an animated source are rendered; 1: animations become their first frame.
    public var maxAnimationFrames: Int
    /// > 0: each frame of an animation may have this many pixels, and the pixel limit no longer counts all frames
    /// (imgproxy's `IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION`); 0: `maxPixels` counts width × height × frames.
    public var maxAnimationFrameResolution: Int

    /// Threads one decode may use, for the decoders that can split their work (libjxl today; the others use the
    /// calling thread). 1, the default, is what serve keeps: its render pool already runs one render per core, so
    /// more threads per render would only oversubscribe the machine. The CLI's `thumbnail`, which renders one input
    /// at a time, passes the machine's cores. Each extra thread's buffers are counted in the decoder's working memory
    /// (`JXLDecoder.memoryPerThread`); values below 1 count as 1.
    public var decodeThreads: Int

    public init(maxPixels: Int = ImageDecoder.defaultMaxPixels,
                maxDecodeMemory: Int = ThumbnailRequest.defaultMaxDecodeMemory,
                maxEffectWork: Int = defaultMaxEffectWork,
                maxAnimationFrames: Int = defaultMaxAnimationFrames, maxAnimationFrameResolution: Int = 0,
                decodeThreads: Int = 1) {
        (self.maxPixels, self.maxDecodeMemory, self.maxEffectWork) = (maxPixels, maxDecodeMemory, maxEffectWork)
        (self.maxAnimationFrames, self.maxAnimationFrameResolution) = (maxAnimationFrames, maxAnimationFrameResolution)
        self.decodeThreads = decodeThreads
    }
}
