import DiskLru
import Foundation
import ImageDecode
import Processing

/// Everything the pipeline keeps on disk, behind one API: per source one entry in `entries/` (its metadata, its
/// original and its ladder thumbnails, `EntryStore`) and its processed variants in `variants/` (`VariantStore`),
/// the two sharing one disk budget (`SharedDiskBudget`). The rules that span both live here: a new original drops
/// the source's variants, a removal takes both, a purge empties both under one lock. Both directories are opened
/// the same way (`StoreAccess`) and remember what they parsed the same way (`SnapshotMemo`).
final class RenditionStore: Sendable {
    let entries: EntryStore
    /// Processed images on disk; nil when they are kept in memory only (`--variant-disk-size 0`) or, read-only,
    /// when the directory has none.
    let variants: VariantStore?
    private let directory: CacheDirectory
    private let access: StoreAccess

    init(_ configuration: PipelineConfiguration, onLockWait: @Sendable (String) -> Void) throws(PipelineError) {
        directory = CacheDirectory(url: configuration.cacheDirectory)
        access = StoreAccess(lockMode: configuration.lockMode, lockTimeout: configuration.lockTimeout,
                             readOnly: configuration.readOnly, cleanup: configuration.inlineDiskTrim ? .inline : .background)
        entries = try EntryStore(directory: directory.entries, maxSize: configuration.maxDiskSize, ladder: configuration.ladder,
                                 access: access, shared: configuration.cacheRole.isShared, onLockWait: onLockWait)
        if configuration.readOnly {
            // `info` lists the variants when the directory has them (an older cache has none).
            variants = try? VariantStore(directory: directory.variants, maxSize: 1, access: access)
            return
        }
        let share = min(configuration.maxDiskSize, max(0, configuration.maxVariantDiskSize ?? configuration.maxDiskSize / 4))
        let budget = SharedDiskBudget(total: configuration.maxDiskSize, share: share, entries: entries.cache)
        if share > 0 {
            variants = try VariantStore(directory: directory.variants, maxSize: share, access: access, sharing: budget)
        } else {
            variants = nil
            try Self.removeUnusedVariants(in: directory, access: access)
        }
        do { try budget.settleAtStart() } catch { throw .cache(error) }
    }

    var ladder: SizeLadder { entries.ladder }
    var directoryPath: String { entries.cache.directory.path }
    /// The bytes stored, entries and variants together.
    var size: Int64 { entries.cache.size + (variants?.cache.size ?? 0) }

    // MARK: Entries

    func entry(forKey key: String) throws(PipelineError) -> EntryStore.Entry? { try entries.entry(forKey: key) }

    func storedOriginalDigest(key: String) -> String? { entries.storedOriginalDigest(key: key) }

    func freshState(key: String, now: Date, read: DiskRead = .waiting) throws(PipelineError) -> KnownEntries.Known? {
        try entries.freshState(key: key, now: now, read: read)
    }

    @discardableResult
    func updateMetadata(key: String, _ metadata: CacheMetadata) throws(PipelineError) -> Bool {
        try entries.updateMetadata(key: key, metadata)
    }

    /// Stores a downloaded original (with a ladder thumbnail of it, if any); a new original makes the source's
    /// variants outdated, so they go. A variant rendered from the old original and stored after this is still
    /// refused when read: its record names the old original's digest (`variant(source:name:originalDigest:)`).
    func saveOriginal(key: String, metadata: CacheMetadata, original: FetchedOriginal,
                      thumbnail: StoredThumbnail?) throws(PipelineError) -> Int {
        let saved = try entries.save(key: key, metadata: metadata, original: original, thumbnail: thumbnail)
        if saved.newOriginal { variants?.removeAll(ofSource: key) }
        return saved.bytes
    }

    // MARK: Ladder thumbnails

    func storedThumbnail(key: String, size: Int, now: Date, read: DiskRead,
                         format decide: (CacheMetadata.Original) -> FormatDecision) throws(PipelineError) -> EntryStore.StoredHit? {
        try entries.storedThumbnail(key: key, size: size, now: now, read: read, format: decide)
    }

    func storedFormat(_ size: Int, _ decision: FormatDecision, of metadata: CacheMetadata) -> ImageFormat? {
        entries.storedFormat(size, decision, of: metadata)
    }

    func thumbnail(_ size: Int, format: ImageFormat, of entry: EntryStore.Entry) throws(PipelineError) -> Data? {
        try entries.thumbnail(size, format: format, of: entry)
    }

    @discardableResult
    func addThumbnail(key: String, madeFrom digest: String, thumbnail: StoredThumbnail) throws(PipelineError) -> Int {
        try entries.addThumbnail(key: key, madeFrom: digest, thumbnail: thumbnail)
    }

    // MARK: Processed variants

    /// The stored variant `name` of `source`, if it was rendered from the original of `originalDigest`.
    func variant(source: String, name: String, originalDigest: String,
                 read: DiskRead = .waiting) throws(PipelineError) -> (data: Data, record: VariantStore.Record)? {
        try variants?.stored(source: source, variant: name, originalDigest: originalDigest, read: read)
    }

    /// Stores a rendered variant (nothing when variants are kept in memory only); returns the bytes written.
    func saveVariant(_ data: Data, record: VariantStore.Record) throws(PipelineError) -> Int {
        try variants?.save(data, record: record) ?? 0
    }

    // MARK: Removal

    /// Removes a source's entry and its variants; returns whether there was either.
    @discardableResult
    func remove(key: String) -> Bool {
        let existed = (try? entries.entry(forKey: key)).flatMap { $0 }.map { entry in
            entry.snapshot.close()
            return true
        } ?? false
        entries.remove(key: key)
        return (variants?.removeAll(ofSource: key) ?? 0) > 0 || existed
    }

    /// Empties both directories inside one access (no other process interleaves); returns the entries and bytes
    /// there were (a source's variants are counted with its entry).
    func removeAll() throws(PipelineError) -> (entries: Int, bytes: Int64) {
        do {
            return try entries.cache.withAccess {
                let counted = (entries.cache.entryCount, size)
                try entries.cache.evictAll()
                guard let variants else {
                    // Variants off: a `variants/` written since the start (by a process with a share) goes too.
                    return (counted.0, counted.1 + (try Self.removeUnusedVariants(in: directory, access: access)))
                }
                try variants.evictAll()
                return counted
            }
        } catch {
            throw .stored(error)
        }
    }

    /// Deletes the variants a configuration without a variant share (`--variant-disk-size 0`) finds in `variants/`
    /// (left by a run with a share): nothing would write or evict them, so they would hold part of
    /// `--max-disk-size` for good if counted, and lie outside it if not. Deleted through DiskLru, under its lock,
    /// so a process using them meanwhile is not corrupted; the folder and its empty lock file stay (a process may
    /// be waiting on that lock). Returns the bytes deleted.
    @discardableResult
    private static func removeUnusedVariants(in directory: CacheDirectory, access: StoreAccess) throws(PipelineError) -> Int64 {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.variants.path)) ?? []
        guard names.contains(where: { $0 != DiskLruCache.lockFileName }) else { return 0 }
        // No bound to keep while it is deleted: `.max` and `.manual`, so opening it trims nothing first.
        var deleting = access
        deleting.cleanup = .manual
        let unused = try VariantStore(directory: directory.variants, maxSize: .max, access: deleting)
        let bytes = unused.cache.size
        do { try unused.cache.delete() } catch { throw .cache(error) }
        return bytes
    }

    // MARK: Lifetime

    /// Runs `body` inside one access of the entries' directory (the counters' file is written under its lock).
    func withAccess<T>(_ body: () throws -> T) throws -> T { try entries.cache.withAccess(body) }

    /// The entries' journal, its buffered records written out first (unless read-only).
    func journalFile() -> URL {
        if !access.readOnly { try? entries.cache.flush() }
        return entries.cache.directory.appendingPathComponent(DiskLruCache.journalFileName)
    }

    func close() {
        try? entries.cache.close()
        try? variants?.cache.close()
    }
}

/// Whether a read may wait for the disk, or must answer from the page cache alone (nil rather than block: an
/// event loop's read).
public enum DiskRead: Sendable, Equatable {
    case waiting
    case residentOnly
}
