import Foundation

/// Where `PlanRenderer.renderAnimation` sends each frame as soon as it is rendered, so an animation is never held
/// whole: an encoder that writes frames as they come (`GIFEncoder`, `WebPAnimationEncoder`, made by
/// `AnimationEncoder.writer(for:quality:)`). Frames arrive in order and are all of one size.
public protocol AnimationWriter: AnyObject {
    /// The next frame, shown for `delay` milliseconds (as played: `RenderedAnimation.playable(delay:)`).
    func add(_ frame: PixelBuffer, delay: Int) throws(ImageDecodeError)
    /// After the last frame: the file. `loopCount` 0: forever; n: as stored; nil: played once. Given only now, as a
    /// GIF may state it after its first frame.
    func finish(loopCount: Int?) throws(ImageDecodeError) -> Data
    /// The most this writer holds for `frames` frames of `width` x `height`, the file it grows included: what
    /// `renderAnimation` counts against the memory budget beside one frame's render.
    func workingMemory(width: Int, height: Int, frames: Int) -> Int
}
