/// One frame of an animation as it is shown: the whole canvas, composited (the format's blending and disposal
/// applied), RGBA, and how long it stays.
struct AnimationFrame {
    var canvas: PixelBuffer
    /// Milliseconds, as stored (`RenderedAnimation.playable(delay:)` is what the output gets).
    var delay: Int
}

/// The frames of an animated source, composited one at a time on its canvas: what `PlanRenderer.renderAnimation`
/// reads through (each frame becomes a `FrameRowDecoder`, so every frame goes through the one renderer).
protocol FrameSource: AnyObject {
    /// The canvas (logical screen).
    var width: Int { get }
    var height: Int { get }
    /// Frames as the header counts them.
    var frameCount: Int { get }
    /// 0: forever; n: as stored; nil: the file says nothing (GIF without NETSCAPE2.0: played once).
    var loopCount: Int? { get }
    /// Bytes held while compositing (canvases, scratch), from the header, before any is allocated.
    var workingMemory: Int { get }
    /// The next frame, or nil after the last. A file cut or broken after at least one whole frame ends there
    /// (browsers show the frames that arrived); one cut or broken in its first frame is refused (`truncated`, `corrupt`).
    func nextFrame() throws(ImageDecodeError) -> AnimationFrame?
}
