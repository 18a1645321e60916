import Foundation
import CWebpGifAvifGlue
import CJpegPngGlue

/// Writes GIF: a still, or an animation's frames as they come (`AnimationWriter`). Each frame gets its own palette
/// (a local colour table), made by our quantiser (`tc_quantize_rgba`: an image of at most 256 colours keeps them
/// exactly, else median cut refined by k-means, and Floyd–Steinberg dithering at `ditherPercent`), and pixels with
/// alpha under 128 are the one transparent index.
///
/// Animations are written as differences, as GIF encoders do: a frame that never makes a shown pixel transparent
/// again is drawn over the previous one (disposal 1), with the pixels that did not change transparent (they
/// compress to almost nothing and take no palette entries) and cut to the rectangle that changed. A frame that must
/// clear pixels follows a whole-canvas frame cleared after it is shown (disposal 2). So a frame is written once the
/// next one has arrived (its disposal depends on it): three frames are held, the one before, the one written and the
/// next, never the whole animation.
final class GIFEncoder: AnimationWriter {
    /// At most 256 colours a frame, one of them transparent where needed.
    static let maxColors = 256
    /// Floyd–Steinberg at half strength: mean luma SSIM of four 256 px photos against their PNG render was 0.9753 at
    /// full strength, 0.9834 at half and 0.9847 without (vips gifsave: 0.9874); half keeps most of that while smooth
    /// gradients still do not band (docs/benchmarks.md, "Issue 32: animation and GIF out").
    static let ditherPercent = 50

    /// A frame waiting for the next one, which decides its disposal.
    private struct Pending {
        var frame: PixelBuffer
        var delay: Int
        /// It clears no pixel the frame before showed, so it may be drawn over that one.
        var overPrevious: Bool
    }

    /// One frame with no loop extension and no delay.
    private let still: Bool
    private var encoder: OpaquePointer?
    /// The frame before `pending`, as shown (RGBA): what `pending`'s differences are taken against.
    private var previous: PixelBuffer?
    private var pending: Pending?
    private var indices = [UInt8]()
    private var palette = [UInt8](repeating: 0, count: 768)

    init(still: Bool = false) { self.still = still }

    deinit { tc_gif_encoder_destroy(encoder) }

    static func encode(_ image: PixelBuffer) throws(ImageDecodeError) -> Data {
        let writer = GIFEncoder(still: true)
        try writer.add(image, delay: 0)
        return try writer.finish(loopCount: nil)
    }

    func add(_ frame: PixelBuffer, delay: Int) throws(ImageDecodeError) {
        let frame = frame.hasAlpha ? frame : frame.withAlpha()
        guard let pending else {
            try start(width: frame.width, height: frame.height)
            pending = Pending(frame: frame, delay: delay, overPrevious: false)
            return
        }
        guard frame.width == pending.frame.width, frame.height == pending.frame.height else {
            throw .encodeFailed("an animation's frames must be of one size: \(frame.width)x\(frame.height) after "
                                + "\(pending.frame.width)x\(pending.frame.height)")
        }
        let over = !Self.clearsAPixel(frame, after: pending.frame)
        try write(pending, keptAfter: over)
        previous = pending.frame
        self.pending = Pending(frame: frame, delay: delay, overPrevious: over)
    }

    func finish(loopCount: Int?) throws(ImageDecodeError) -> Data {
        guard let pending, let encoder else { throw .encodeFailed("an animation needs at least one frame") }
        try write(pending, keptAfter: true)
        (self.pending, previous) = (nil, nil)
        var out = tc_encoded()
        let status = tc_gif_encoder_finish(encoder, still ? -1 : Int32(loopCount ?? -1), &out)
        return try takeEncoded(&out, status: status)
    }

    func workingMemory(width: Int, height: Int, frames: Int) -> Int {
        Self.workingMemory(width: width, height: height, frames: frames)
    }

    /// Three RGBA frames (the one before, the one written, the next), the changed rectangle cut out (RGBA) with its
    /// map of changed pixels, the palette indices, and the quantiser's tables (a 2^18-entry nearest-colour lookup of
    /// 2 bytes, a 2^15-bin histogram of a count and three sums, and two rows of dithering errors). The file: LZW
    /// writes at most one code of at most 12 bits a pixel (1.5 bytes, plus a length byte every 255), and each frame
    /// adds at most 768 bytes of palette and its records; this bound holds whatever the pixels. The glue's buffer
    /// grows to a quarter more than it needs, so what it holds is up to 1.25x the file: counted so.
    static func workingMemory(width: Int, height: Int, frames: Int) -> Int {
        let pixels = width * height
        let quantiser = (1 << 18) * 2 + (1 << 15) * (4 + 24) + (width + 2) * 6 * 4 + 16_384
        let file = frames * (pixels * 3 / 2 + pixels / 128 + 1_024) * 5 / 4
        return pixels * (3 * 4 + 4 + 1 + 1) + quantiser + file
    }

    private func start(width: Int, height: Int) throws(ImageDecodeError) {
        guard width > 0, height > 0, width <= 65535, height <= 65535 else {
            throw .encodeFailed("GIF is at most 65535x65535 pixels, not \(width)x\(height)")
        }
        guard let made = tc_gif_encoder_create(Int32(width), Int32(height)) else { throw .outOfMemory }
        encoder = made
        indices = [UInt8](repeating: 0, count: width * height)
    }

    /// Writes `frame`; `keptAfter`: the next frame clears no pixel of it (or there is none), so it stays (disposal 1)
    /// and may be written as differences; otherwise it is written whole and cleared after it is shown (disposal 2).
    private func write(_ frame: Pending, keptAfter: Bool) throws(ImageDecodeError) {
        let (width, height) = (frame.frame.width, frame.frame.height)
        let (part, rect) = if frame.overPrevious, keptAfter, let previous { Self.changes(frame.frame, since: previous) }
                           else { (frame.frame, ProcessingPlan.Rect(x: 0, y: 0, width: width, height: height)) }
        var transparentIndex: Int32 = -1
        let colors = part.pixels.withUnsafeBufferPointer { pixels in
            tc_quantize_rgba(pixels.baseAddress, Int32(part.width), Int32(part.height), part.rowBytes, 4,
                             Int32(Self.maxColors), Int32(Self.ditherPercent), &indices, &palette, &transparentIndex)
        }
        guard colors > 0 else { throw .outOfMemory }
        var error = tc_encoded()
        let status = tc_gif_encoder_add(encoder, Int32(rect.x), Int32(rect.y), Int32(rect.width), Int32(rect.height),
                                        indices, palette, max(2, colors), transparentIndex,
                                        still ? 0 : Int32(min(65535, (frame.delay + 5) / 10)), keptAfter ? 1 : 2, &error)
        guard status == TC_OK else { _ = try takeEncoded(&error, status: status); return }
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
