import DiskLru

/// `--max-disk-size`, shared by `entries/` and `variants/`: the variants may use up to their share of it, and the
/// entries everything the variants do not use at the moment. A fixed split left a quarter of the disk unused by a
/// cache that serves no processed URLs, and its originals evicted early (docs/disk-layout.md, "Variants").
/// The entries never get less than the total minus the variants' share, so a flood of processed URLs cannot push
/// out the originals and ladder thumbnails every variant is rendered from.
struct SharedDiskBudget: Sendable {
    let total: Int64
    /// The variants' part (`--variant-disk-size`, at most `total`; 0: no variants on disk).
    let share: Int64
    let entries: DiskLruCache
    private let serial = Locked(())

    init(total: Int64, share: Int64, entries: DiskLruCache) {
        (self.total, self.share, self.entries) = (total, share, entries)
    }

    /// The entries' bound while the variants hold `variantBytes`: what they leave, and never less than the floor
    /// `total - share`. Variants beyond their share are theirs to pay for (`variantsChanged`), not the entries'.
    func entriesBound(whileVariantsHold variantBytes: Int64) -> Int64 {
        max(1, total - min(max(0, variantBytes), share))
    }

    /// After `variants` changed (a write, a removal, an open): trims them to their share now if the change took
    /// them over it, then gives the entries what they leave.
    ///
    /// Both halves are needed. The variants' DiskLru trims in the background, so between a write and its trim
    /// they exceeded their share, and an entries' bound of `total - variantBytes` evicted originals below the
    /// floor (issue 33: 7 of 40 with 8 MB and a 2 MB share): the writer now trims at once, so the sum stays
    /// within the total without waiting on a queue. But a trim skips variants being written, and another process
    /// sharing the directory writes meanwhile, so the bound also counts at most `share` of them: the floor holds
    /// whatever the variants do.
    func variantsChanged(_ variants: DiskLruCache) {
        // One change at a time: two writers reading the variants' size in one order and setting the bound in the
        // other would leave the bound of the smaller size, too high, until the next change.
        serial.withLock { _ in
            if variants.size > share {
                // A failed trim leaves the variants over their share for a while; the floor still holds, and the
                // next change (or the background job their commit scheduled) tries again.
                try? variants.performCleanup()
            }
            let bound = entriesBound(whileVariantsHold: variants.size)
            if entries.maxSize != bound { entries.setMaxSize(bound) }
            // A lowered bound is applied now rather than by the entries' background job, so the two directories
            // together stay within the total after a variant write, not only once that job has run.
            if entries.size > bound { try? entries.performCleanup() }
        }
    }

    /// At start, whatever is on disk counts: once the variants are opened (`variantsChanged`, which trims them to
    /// a share lowered since the last run) or removed, the entries are trimmed to their bound now rather than by
    /// the background job, so the start leaves both within the total even when it was lowered.
    func settleAtStart() throws(DiskLruError) {
        try entries.flush()
    }
}
