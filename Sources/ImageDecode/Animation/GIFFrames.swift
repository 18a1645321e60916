import CWebpGifAvifGlue
import CJpegPngGlue

/// An animated GIF's frames on its logical screen: each frame drawn over what the previous one's disposal left
/// (0/1 keep, 2 clear its rectangle to transparent, 3 restore the canvas from before it), transparency kept,
/// frames reaching outside the screen clipped. Our own LZW decoder checks every code (`gif_decode.c`).
final class GIFFrames: FrameSource {
    let width: Int
    let height: Int
    let frameCount: Int
    private(set) var loopCount: Int?
    private let handle: OpaquePointer
    private var frame = tc_gif_frame()
    /// The current frame was read up to its descriptor and not yet drawn.
    private var pending = true
    private var emitted = 0
    private var canvas: UnsafeMutableBufferPointer<UInt8>?
    private var saved: UnsafeMutableBufferPointer<UInt8>?
    private var indices: UnsafeMutableBufferPointer<UInt8>?
    private var covered: UnsafeMutableBufferPointer<UInt8>?

    /// Reads up to the first frame's descriptor; `bytes` must outlive the source.
    init(_ bytes: UnsafeRawBufferPointer, frameCount: Int) throws(ImageDecodeError) {
        var header = tc_gif_header()
        (handle, header) = try DecoderGlue.open(bytes, empty: header, create: tc_gif_decoder_create,
                                                read: tc_gif_read_header, message: tc_gif_message,
                                                destroy: tc_gif_decoder_destroy)
        (width, height, self.frameCount) = (Int(header.screen_width), Int(header.screen_height), frameCount)
        _ = tc_gif_first_frame(handle, &frame)
        let loop = tc_gif_loop_count(handle)
        loopCount = loop >= 0 ? Int(loop) : nil
    }

    deinit {
        tc_gif_decoder_destroy(handle)
        for buffer in [canvas, saved, indices, covered] { buffer?.deallocate() }
    }

    /// The canvas, the canvas saved for disposal 3, and one index and one coverage byte a pixel.
    var workingMemory: Int { width * height * (4 + 4 + 2) + 20_000 }

    func nextFrame() throws(ImageDecodeError) -> AnimationFrame? {
        let pixels = width * height
        if canvas == nil {
            // Allocated only now, after the caller checked the screen against its budgets.
            canvas = .allocate(capacity: pixels * 4)
            canvas!.initialize(repeating: 0)
            indices = .allocate(capacity: pixels)
            indices!.initialize(repeating: 0)
            covered = .allocate(capacity: pixels)
            covered!.initialize(repeating: 0)
        }
        if !pending {
            tc_gif_dispose(handle, &frame, canvas!.baseAddress, saved?.baseAddress)
            var found: Int32 = 0
            let status = tc_gif_next_frame(handle, &frame, &found)
            // A file cut or broken after a whole frame ends the animation there, as browsers show it.
            if status != TC_OK || found == 0 { return nil }
        }
        pending = false
        if frame.disposal == 3 {
            if saved == nil { saved = .allocate(capacity: pixels * 4) }
            _ = saved!.initialize(from: canvas!)
        }
        let status = tc_gif_composite(handle, &frame, canvas!.baseAddress, indices!.baseAddress, covered!.baseAddress)
        guard status == TC_OK else {
            // A later frame cut short or broken: the frames that arrived whole are the animation.
            if emitted > 0 { return nil }
            throw ImageDecoder.error(status, message: tc_gif_message(handle))
        }
        emitted += 1
        if let loop = Optional(tc_gif_loop_count(handle)), loop >= 0 { loopCount = Int(loop) }
        return AnimationFrame(canvas: PixelBuffer(width: width, height: height, channels: 4, pixels: Array(canvas!)),
                              delay: Int(frame.delay_cs) * 10)
    }
}
