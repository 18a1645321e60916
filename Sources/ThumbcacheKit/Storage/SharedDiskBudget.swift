import DiskLru

/// `--max-disk-size`, shared by `entries/` and `variants/`: the variants may use up to their part of it, and the
/// entries everything the variants do not use at the moment. A fixed split left a quarter of the disk unused by a
/// cache that serves no processed URLs, and its originals evicted early (docs/disk-layout.md, "Variants").
/// The entries never get less than the total minus the variants' part, so a flood of processed URLs cannot push
/// out the originals and ladder thumbnails every variant is rendered from.
struct SharedDiskBudget: Sendable {
    let total: Int64
    let entries: DiskLruCache

    /// Gives the entries what the variants, now `variantBytes` on disk, leave of the total.
    func variantsNowUse(_ variantBytes: Int64) {
        let bound = max(1, total - variantBytes)
        if entries.maxSize != bound { entries.setMaxSize(bound) }
    }
}
