import Foundation
import CWebpGifAvifGlue
import CJpegPngGlue

/// Writes GIF: a still, or an animation's frames. Each frame gets its own palette (a local colour table), made by our
/// quantiser (`tc_quantize_rgba`: an image of at most 256 colours keeps them exactly, else median cut refined by
/// k-means, and Floyd–Steinberg dithering at `ditherPercent`), and pixels with alpha under 128 are the one
/// transparent index.
///
/// Animations are written as differences, as GIF encoders do: a frame that never makes a shown pixel transparent
/// again is drawn over the previous one (disposal 1), with the pixels that did not change transparent (they
/// compress to almost nothing and take no palette entries) and cut to the rectangle that changed. A frame that must
/// clear pixels follows a whole-canvas frame cleared after it is shown (disposal 2).
enum GIFEncoder {
    /// At most 256 colours a frame, one of them transparent where needed.
    static let maxColors = 256
    /// Floyd–Steinberg at half strength: mean luma SSIM of four 256 px photos against their PNG render was 0.9753 at
    /// full strength, 0.9834 at half and 0.9847 without (vips gifsave: 0.9874); half keeps most of that while smooth
    /// gradients still do not band (docs/benchmarks.md, "Issue 32: animation and GIF out").
    static let ditherPercent = 50

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
        let frames = animation.frames.map { $0.hasAlpha ? $0 : $0.withAlpha() }
        // Whether frame i may be drawn over frame i - 1: it clears no pixel that frame showed.
        let overPrevious = frames.indices.map { $0 > 0 && !Self.clearsAPixel(frames[$0], after: frames[$0 - 1]) }
        var indices = [UInt8](repeating: 0, count: width * height)
        var palette = [UInt8](repeating: 0, count: 768)
        var error = tc_encoded()
        for (i, (frame, delay)) in zip(frames, animation.delays).enumerated() {
            let keptAfter = i + 1 == frames.count || overPrevious[i + 1]
            // A frame the next one must clear is written whole, so its disposal clears the whole canvas.
            let (part, rect) = overPrevious[i] && keptAfter ? Self.changes(frame, since: frames[i - 1])
                                                            : (frame, ProcessingPlan.Rect(x: 0, y: 0, width: width, height: height))
            var transparentIndex: Int32 = -1
            let colors = part.pixels.withUnsafeBufferPointer { pixels in
                tc_quantize_rgba(pixels.baseAddress, Int32(part.width), Int32(part.height), part.rowBytes, 4,
                                 Int32(maxColors), Int32(ditherPercent), &indices, &palette, &transparentIndex)
            }
            guard colors > 0 else { throw .outOfMemory }
            let status = tc_gif_encoder_add(encoder, Int32(rect.x), Int32(rect.y), Int32(rect.width), Int32(rect.height),
                                            indices, palette, max(2, colors), transparentIndex,
                                            still ? 0 : Int32(min(65535, (delay + 5) / 10)), keptAfter ? 1 : 2, &error)
            guard status == TC_OK else { _ = try takeEncoded(&error, status: status); return Data() }
        }
        var out = tc_encoded()
        let status = tc_gif_encoder_finish(encoder, &out)
        return try takeEncoded(&out, status: status)
    }

    /// A pixel transparent here (alpha < 128) that was shown (alpha ≥ 128) in `previous`.
    private static func clearsAPixel(_ frame: PixelBuffer, after previous: PixelBuffer) -> Bool {
        frame.pixels.withUnsafeBufferPointer { now in
            previous.pixels.withUnsafeBufferPointer { before in
                stride(from: 3, to: now.count, by: 4).contains { now[$0] < 128 && before[$0] >= 128 }
            }
        }
    }

    /// The smallest rectangle holding every pixel that differs from `previous`, cut out, with the pixels that did
    /// not change made transparent (one pixel when nothing changed: GIF has no empty frame).
    private static func changes(_ frame: PixelBuffer, since previous: PixelBuffer) -> (PixelBuffer, ProcessingPlan.Rect) {
        let width = frame.width
        var (left, top, right, bottom) = (Int.max, Int.max, -1, -1)
        var changed = [Bool](repeating: false, count: width * frame.height)
        frame.pixels.withUnsafeBufferPointer { now in
            previous.pixels.withUnsafeBufferPointer { before in
                for y in 0..<frame.height {
                    for x in 0..<width {
                        let at = (y * width + x) * 4
                        // Transparent in both: nothing to draw either way.
                        let same = now[at + 3] < 128 && before[at + 3] < 128
                            || (now[at] == before[at] && now[at + 1] == before[at + 1] && now[at + 2] == before[at + 2]
                                && (now[at + 3] >= 128) == (before[at + 3] >= 128))
                        guard !same else { continue }
                        changed[y * width + x] = true
                        (left, top, right, bottom) = (min(left, x), min(top, y), max(right, x), max(bottom, y))
                    }
                }
            }
        }
        guard right >= 0 else {
            return (PixelBuffer(width: 1, height: 1, channels: 4, pixels: [0, 0, 0, 0]), .init(x: 0, y: 0, width: 1, height: 1))
        }
        let rect = ProcessingPlan.Rect(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
        var pixels = [UInt8](repeating: 0, count: rect.width * rect.height * 4)
        frame.pixels.withUnsafeBufferPointer { now in
            for y in 0..<rect.height {
                for x in 0..<rect.width where changed[(rect.y + y) * width + rect.x + x] {
                    let from = ((rect.y + y) * width + rect.x + x) * 4, to = (y * rect.width + x) * 4
                    for c in 0..<4 { pixels[to + c] = now[from + c] }
                }
            }
        }
        return (PixelBuffer(width: rect.width, height: rect.height, channels: 4, pixels: pixels), rect)
    }
}
