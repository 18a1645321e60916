/// What one render may cost: refused from the header, before pixel memory exists.
public struct RenderLimits: Sendable, Hashable {
    /// About 4 s of one core of this project's 2-core benchmark machine for the filters' loops
    /// (docs/benchmarks.md, "Effect work"): `bl:10` on a 2000×2000 result passes, `bl:100` on 1500×1500 does not.
    public static let defaultMaxEffectWork = 4_000_000_000

    /// Sources with more pixels than this are refused (`ImageDecodeError.tooLarge`).
    public var maxPixels: Int
    /// The decoder's, resizer's and output buffers together (`PlanRenderer.workingMemory`); over it,
    /// `ImageDecodeError.overMemoryBudget`.
    public var maxDecodeMemory: Int
    /// The filters' and detectors' arithmetic, in operations (`RenderWork`): a processing URL over it is refused
    /// before its render starts, naming the option that costs most.
    public var maxEffectWork: Int

    public init(maxPixels: Int = ImageDecoder.defaultMaxPixels,
                maxDecodeMemory: Int = ThumbnailRequest.defaultMaxDecodeMemory,
                maxEffectWork: Int = defaultMaxEffectWork) {
        (self.maxPixels, self.maxDecodeMemory, self.maxEffectWork) = (maxPixels, maxDecodeMemory, maxEffectWork)
    }
}
