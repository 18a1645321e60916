import Foundation
import CWebpGifAvifGlue
import CJpegPngGlue

/// Writes GIF: a still, or an animation's frames. Each frame gets its own palette (a local colour table), made
/// by our quantiser (`tc_quantize_rgba`: an image of at most 256 colours keeps them exactly, else median cut and
/// Floyd–Steinberg dithering; docs/benchmarks.md, "Issue 32: animation and GIF out", has the measurements that
/// chose it), pixels with alpha under 128 are the one transparent index. Frames are whole canvases; in an
/// animation with transparency each is cleared before the next (disposal 2), else drawn over it (disposal 1).
enum GIFEncoder {
    /// At most 256 colours a frame, one of them transparent where needed.
    static let maxColors = 256

    static func encode(_ image: PixelBuffer) throws(ImageDecodeError) -> Data {
        try encode(RenderedAnimation(frames: [image], delays: [0], loopCount: nil), still: true)
    }

    /// `still`: one frame with no loop extension and no delay.
    static func encode(_ animation: RenderedAnimation, still: Bool = false) throws(ImageDecodeError) -> Data {
        let (width, height) = (animation.width, animation.height)
        guard width > 0, height > 0, width <= 65535, height <= 65535 else {
            throw .encodeFailed("GIF is at most 65535x65535 pixels, not \(width)x\(height)")
        }
        guard let encoder = tc_gif_encoder_create(Int32(width), Int32(height), still ? -1 : Int32(animation.loopCount ?? -1)) else {
            throw .outOfMemory
        }
        defer { tc_gif_encoder_destroy(encoder) }
        let transparent = animation.frames.contains { $0.hasAlpha && Self.hasTransparency($0) }
        var indices = [UInt8](repeating: 0, count: width * height)
        var palette = [UInt8](repeating: 0, count: 768)
        var error = tc_encoded()
        for (frame, delay) in zip(animation.frames, animation.delays) {
            var transparentIndex: Int32 = -1
            let colors = frame.pixels.withUnsafeBufferPointer { pixels in
                tc_quantize_rgba(pixels.baseAddress, Int32(width), Int32(height), frame.rowBytes, Int32(frame.channels),
                                 Int32(maxColors), 1, &indices, &palette, &transparentIndex)
            }
            guard colors > 0 else { throw .outOfMemory }
            let status = tc_gif_encoder_add(encoder, indices, palette, max(2, colors), transparentIndex,
                                            still ? 0 : Int32(min(65535, (delay + 5) / 10)), transparent ? 2 : 1, &error)
            guard status == TC_OK else { _ = try takeEncoded(&error, status: status); return Data() }
        }
        var out = tc_encoded()
        let status = tc_gif_encoder_finish(encoder, &out)
        return try takeEncoded(&out, status: status)
    }

    private static func hasTransparency(_ frame: PixelBuffer) -> Bool {
        frame.pixels.withUnsafeBufferPointer { pixels in
            stride(from: 3, to: pixels.count, by: 4).contains { pixels[$0] < 128 }
        }
    }
}
