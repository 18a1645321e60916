import Foundation

/// An encoded image opened once for a request's every read: its header (the probe), the memory estimate, a trim scan
/// and the render. A decoder whose open is costly and leaves it reusable (`RowDecoder.reopened(maxPixels:)`: librsvg
/// builds an SVG's whole tree on each open, which happened two to four times a thumbnail) is kept from the first read
/// to the last and serves each of them, under the pixel limit each asks for; any other decoder is opened for each read
/// as before, its open being a header read and a started decoder being spent. The kept decoder, and so the parsed
/// document, lives until `dropKept` or this object ends: serve drops it before a render waits for a worker (the
/// memory budget reserves a render's memory only once it has one), so there the probe and the estimate share one
/// parse and the render makes its own.
///
/// Why a kept decoder rather than a header read that builds no tree: the size then comes from the librsvg that draws,
/// so the probe's size is the render's by construction, and the one renderer is unchanged (it reads through
/// `ImageDecoder.withDecoder`, which hands it this decoder). It also serves any other costly open that opts in.
///
/// Sendable, though decoders are not: a read takes the kept decoder out under `lock` and puts it back when done, so
/// one read at a time uses it (a decoder's rule: one thread at a time), whichever thread that is (serve probes on the
/// request's task and renders on a worker), and the lock orders one read's use before the next. A read that finds it
/// taken (renders of one download running at once) opens the source itself rather than wait.
public final class OpenedImage: @unchecked Sendable {
    /// The bytes or the file (never itself opened).
    public let source: EncodedImage
    /// A pthread mutex (NSLock) rather than `Synchronization.Mutex`, as `Locked` in ThumbcacheKit: ThreadSanitizer
    /// sees it synchronise.
    private let lock = NSLock()
    /// Guarded by `lock`: the kept decoder when no read has it, or nil (not opened yet, in use, or not reusable).
    private var kept: (any RowDecoder)?
    /// Guarded by `lock`: `dropKept` was called; no decoder is kept after it, the reads that follow open their own.
    private var dropped = false

    public init(_ source: EncodedImage) {
        self.source = source.unopened
    }

    /// `body` on a decoder of this image under `maxPixels` (`threads` for a decoder opened here, as
    /// `ImageDecoder.withDecoder`'s): one of the kept decoder when it is free, else a new open of
    /// the source (kept when reusable). The same checks as `ImageDecoder.withDecoder` (the pixel limit from the header).
    func withDecoder<Result>(maxPixels: Int, maxMemory: Int, threads: Int,
                             _ body: (any RowDecoder) throws(ImageDecodeError) -> Result) throws(ImageDecodeError) -> Result {
        // A fresh decoder of the kept open for each read: one read's state (a started size) never reaches the next.
        if let template = take(), let decoder = template.reopened(maxPixels: maxPixels) {
            defer { putBack(template) }
            return try ImageDecoder.run(decoder, maxPixels: maxPixels, body)
        }
        return try ImageDecoder.withDecoder(for: source, maxPixels: maxPixels, maxMemory: maxMemory, threads: threads) {
            (decoder) throws(ImageDecodeError) in
            // Shares `decoder`'s open, so it is put back only once `body` is done with `decoder`.
            let template = decoder.reopened(maxPixels: maxPixels)
            defer { if let template { putBack(template) } }
            return try body(decoder)
        }
    }

    /// Drops the kept decoder (and the document it parsed) until a later read opens the source again: what a caller
    /// about to wait does (serve's render queued for a worker), so the wait holds nothing the memory budget has not
    /// reserved. A read using it meanwhile keeps its own and does not put it back.
    public func dropKept() {
        lock.lock()
        defer { lock.unlock() }
        kept = nil
        dropped = true
    }

    private func take() -> (any RowDecoder)? {
        lock.lock()
        defer { lock.unlock() }
        defer { kept = nil }
        return kept
    }

    /// Keeps `template` for the next read, unless another read's is kept already or the kept one was dropped since.
    private func putBack(_ template: any RowDecoder) {
        lock.lock()
        defer { lock.unlock() }
        if kept == nil && !dropped { kept = template }
    }
}
