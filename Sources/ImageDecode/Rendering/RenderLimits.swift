/// What one render may cost: refused from the header, before pixel memory exists.
public struct RenderLimits: Sendable, Hashable {
    /// Sources with more pixels than this are refused (`ImageDecodeError.tooLarge`).
    public var maxPixels: Int
    /// The decoder's, resizer's and output buffers together (`PlanRenderer.workingMemory`); over it,
    /// `ImageDecodeError.overMemoryBudget`.
    public var maxDecodeMemory: Int

    public init(maxPixels: Int = ImageDecoder.defaultMaxPixels,
                maxDecodeMemory: Int = ThumbnailRequest.defaultMaxDecodeMemory) {
        (self.maxPixels, self.maxDecodeMemory) = (maxPixels, maxDecodeMemory)
    }
}
