/// What `ThumbnailPipeline.removeAll()` removed.
public struct RemovedEntries: Sendable, Equatable {
    /// Disk entries (one per source: its original and every thumbnail) and the bytes their values and their
    /// processed variants took.
    public var entries: Int
    public var bytes: Int64
    /// Thumbnails (and processed images) that were in the memory cache.
    public var memoryThumbnails: Int
}
