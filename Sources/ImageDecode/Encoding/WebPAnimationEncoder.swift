import Foundation
import CWebpGifAvifGlue
import CJpegPngGlue

/// Writes animated WebP as its frames come (`AnimationWriter`): libwebpmux's WebPAnimEncoder, lossy at `quality`,
/// method 4, which takes frames one at a time and chooses each one's sub-rectangle, blending and disposal itself.
final class WebPAnimationEncoder: AnimationWriter {
    private let quality: Int
    private var encoder: OpaquePointer?
    /// Where the next frame starts, in milliseconds: the delays so far.
    private var timestamp = 0
    /// The first frame's size: libwebp reads every frame at it, so a frame of another size is refused here.
    private var size: (width: Int, height: Int)?

    init(quality: Int) { self.quality = quality }

    deinit { tc_webp_animation_encoder_destroy(encoder) }

    func add(_ frame: PixelBuffer, delay: Int) throws(ImageDecodeError) {
        if let size, size != (frame.width, frame.height) {
            throw .encodeFailed("an animation's frames must be one size: \(frame.width)x\(frame.height) after \(size.width)x\(size.height)")
        }
        size = (frame.width, frame.height)
        if encoder == nil {
            guard let made = tc_webp_animation_encoder_create(Int32(frame.width), Int32(frame.height), Int32(quality)) else {
                throw .encodeFailed("libwebp cannot make an animation of \(frame.width)x\(frame.height)")
            }
            encoder = made
        }
        var error = tc_encoded()
        let status = frame.pixels.withUnsafeBufferPointer { pixels in
            tc_webp_animation_encoder_add(encoder, pixels.baseAddress, frame.rowBytes, Int32(frame.channels),
                                          Int32(clamping: timestamp), &error)
        }
        guard status == TC_OK else { _ = try takeEncoded(&error, status: status); return }
        timestamp += delay
    }

    func finish(loopCount: Int?) throws(ImageDecodeError) -> Data {
        guard let encoder else { throw .encodeFailed("an animation needs at least one frame") }
        var out = tc_encoded()
        let status = tc_webp_animation_encoder_finish(encoder, Int32(clamping: timestamp), Int32(loopCount ?? -1), &out)
        return try takeEncoded(&out, status: status)
    }

    func workingMemory(width: Int, height: Int, frames: Int) -> Int {
        Self.workingMemory(width: width, height: height, frames: frames)
    }

    /// Bytes a pixel of the frame, from libwebp 1.2.4's sources (src/mux/anim_encode.c and src/enc/): WebPAnimEncoder
    /// keeps three ARGB canvases for its whole life (the current frame's copy, the previous canvas and the previous
    /// one disposed to the background: 12). Adding a frame imports it as ARGB (4), and a lossy encode of its
    /// sub-rectangle (at most the frame) converts it to YUV 4:2:0 with alpha (2.5) and keeps VP8's token pages and
    /// per-macroblock state (at most about 8); its alpha plane is coded losslessly: a quantised and a filtered copy
    /// (2), the plane as an ARGB picture (4), VP8L's transform buffer (4), hash chain (4) and repeat counts (2), and
    /// four sets of backward references of 8 bytes an entry, counted at one entry a pixel, their worst case (32).
    /// Up to six encoded candidates of a frame (two cached frames as key frame and sub-frame, and the two being
    /// compared) are counted like the file, below.
    static let bytesPerPixel: Double = {
        let canvases: Double = 12, imported: Double = 4, yuva = 2.5, vp8: Double = 8
        let alpha: Double = 2 + 4 + 4 + 4 + 2 + 32
        let candidates: Double = 6
        return canvases + imported + yuva + vp8 + alpha + candidates
    }()

    /// The file: the encoder's muxer keeps a copy of every frame it has taken, and assembling the file at the end
    /// writes it once more: two copies, counted at 0.5 bytes a pixel of a frame each. Lossy frames cut to what
    /// changed are far below that (0.04 and 0.11 bytes a pixel for the corpus's 380- and 30-frame animations at
    /// 200 px); it is not a worst case: noise in colour and alpha at quality 100 reaches 2.2 bytes a pixel, as a
    /// still's encoded output can, which no estimate counts.
    static let fileBytesPerPixelOfFrame = 2 * 0.5

    static func workingMemory(width: Int, height: Int, frames: Int) -> Int {
        let pixels = Double(width * height)
        // libwebp's fixed tables (VP8 probabilities and statistics, VP8L histograms): a few hundred KB.
        return Int(pixels * bytesPerPixel) + Int(pixels * fileBytesPerPixelOfFrame) * frames + 512 << 10
    }
}
