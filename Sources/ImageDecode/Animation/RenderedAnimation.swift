/// An animation after the renderer: every frame of the same size, each with how long it is shown.
public struct RenderedAnimation: Sendable {
    public var frames: [PixelBuffer]
    /// Milliseconds per frame, as played (`playable(delay:)`).
    public var delays: [Int]
    /// 0: forever; n: as the source stored it; nil: the source said nothing (played once).
    public var loopCount: Int?

    public init(frames: [PixelBuffer], delays: [Int], loopCount: Int?) {
        (self.frames, self.delays, self.loopCount) = (frames, delays, loopCount)
    }

    /// What browsers play a stored delay as: 10 ms or less (0 included, which would spin a CPU) is 100 ms in
    /// Chromium, Firefox and WebKit, for GIF and WebP alike. The output gets the delay people saw, so an
    /// animation plays at the same speed after it is re-encoded. (imgproxy keeps the stored value.)
    public static func playable(delay: Int) -> Int { delay <= 10 ? 100 : delay }

    public var width: Int { frames.first?.width ?? 0 }
    public var height: Int { frames.first?.height ?? 0 }
}
