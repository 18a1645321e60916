/// What `PlanRenderer.renderAnimation` sent to its writers (`AnimationWriter`): frames of one size, each with how
/// long it is shown. The pixels went to the writers one frame at a time and are not kept.
public struct RenderedAnimation: Sendable, Hashable {
    public var width: Int
    public var height: Int
    /// Milliseconds per frame, as played (`playable(delay:)`), one a frame.
    public var delays: [Int]
    /// 0: forever; n: as the source stored it; nil: the source said nothing (played once).
    public var loopCount: Int?

    public init(width: Int, height: Int, delays: [Int], loopCount: Int?) {
        (self.width, self.height, self.delays, self.loopCount) = (width, height, delays, loopCount)
    }

    public var frameCount: Int { delays.count }

    /// What browsers play a stored delay as: 10 ms or less (0 included, which would spin a CPU) is 100 ms in
    /// Chromium, Firefox and WebKit, for GIF and WebP alike. The output gets the delay people saw, so an
    /// animation plays at the same speed after it is re-encoded. (imgproxy keeps the stored value.)
    public static func playable(delay: Int) -> Int { delay <= 10 ? 100 : delay }
}
