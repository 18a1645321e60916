import CWebpGifAvifGlue
import CJpegPngGlue

/// An animated WebP's frames through libwebpdemux's WebPAnimDecoder, which composites them (alpha blending and
/// disposal to the background as the format says) on its own canvas.
final class WebPFrames: FrameSource {
    let width: Int
    let height: Int
    let frameCount: Int
    /// From the ANIM chunk once the decoder is open (0: forever).
    private(set) var loopCount: Int? = 0
    private let bytes: UnsafeRawBufferPointer
    private var animation: OpaquePointer?
    private var previousTimestamp = 0

    /// `info` is the file's header (`WebPDecoder` read the container); nothing is allocated until the first frame.
    init(_ bytes: UnsafeRawBufferPointer, info: ImageInfo) {
        self.bytes = bytes
        (width, height, frameCount) = (info.width, info.height, info.frameCount ?? 1)
    }

    deinit { tc_webp_animation_destroy(animation) }

    /// WebPAnimDecoder's two canvases, and the copy handed out.
    var workingMemory: Int { width * height * 4 * 3 + 100_000 }

    func nextFrame() throws(ImageDecodeError) -> AnimationFrame? {
        var message = [CChar](repeating: 0, count: Int(TC_MESSAGE_CAPACITY))
        if animation == nil {
            animation = tc_webp_animation_create(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &message)
            guard animation != nil else { throw .corrupt(String(cString: message)) }
            var (canvasWidth, canvasHeight, frames, loop): (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
            tc_webp_animation_info(animation, &canvasWidth, &canvasHeight, &frames, &loop)
            guard Int(canvasWidth) == width, Int(canvasHeight) == height else { throw .corrupt("WebP canvas size changed") }
            loopCount = Int(loop)
        }
        var canvas: UnsafePointer<UInt8>?
        var timestamp: Int32 = 0, found: Int32 = 0
        let status = tc_webp_animation_next(animation, &canvas, &timestamp, &found, &message)
        guard status == TC_OK else { throw ImageDecoder.error(status, message: message) }
        guard found != 0, let canvas else { return nil }
        let delay = Int(timestamp) - previousTimestamp
        previousTimestamp = Int(timestamp)
        return AnimationFrame(canvas: PixelBuffer(width: width, height: height, channels: 4,
                                                  pixels: Array(UnsafeBufferPointer(start: canvas, count: width * height * 4))),
                              delay: delay)
    }
}
