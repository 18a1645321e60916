import DiskLru
import Foundation
import ImageDecode

extension ThumbnailPipeline {
    /// Removes the entry of `source` (original, every thumbnail and processed variant) from disk and memory: URLCache's
    /// `removeCachedResponse(for:)`. Returns whether anything was removed: a server's memory can hold thumbnails
    /// of a source whose disk entry is gone (evicted, or removed by `thumbcache rm` beside it).
    @discardableResult
    public func remove(source: ImageSource) throws(PipelineError) -> Bool {
        let key = keyed(source).cacheKey
        let existed = try store.entry(forKey: key).map { entry in
            entry.snapshot.close()
            return true
        } ?? false
        store.remove(key: key)
        let variantsRemoved = variants?.removeAll(ofSource: key) ?? 0
        var removedFromMemory = false
        for memoryKey in memory.keysInLruOrder where memoryKey.hasPrefix(key + "/") {
            memory.removeValue(forKey: memoryKey)
            removedFromMemory = true
        }
        return existed || variantsRemoved > 0 || removedFromMemory
    }

    /// Empties the disk and memory caches (every entry: original, thumbnails, processed variants): URLCache's
    /// `removeAllCachedResponses()`, and a running server's `POST /admin/purge-all`. The counters are kept
    /// (`clear()` also resets them). Returns what was removed.
    @discardableResult
    public func removeAll() throws(PipelineError) -> RemovedEntries {
        let (entries, bytes): (Int, Int64)
        do {
            (entries, bytes) = try store.cache.withAccess {
                // Processed variants belong to their sources' entries: their bytes are counted with them.
                let counted = (store.cache.entryCount, store.cache.size + (variants?.cache.size ?? 0))
                try store.cache.evictAll()
                try variants?.evictAll()
                return counted
            }
        } catch let error as DiskLruError {
            throw .cache(error)
        } catch {
            throw .cache(.invalidArgument("\(error)"))
        }
        let memoryThumbnails = memory.keysInLruOrder.count
        memory.removeAll()
        unstored.removeAll()
        return RemovedEntries(entries: entries, bytes: bytes, memoryThumbnails: memoryThumbnails)
    }

    /// The smallest `contain` size whose thumbnail still covers a `size`×`size` crop of an image of this shape:
    /// a `cover` render can start from a stored rung at least this large instead of the original.
    static func containSize(covering size: Int, fit: FitMode, _ original: CacheMetadata.Original) -> Int {
        guard fit == .cover, original.width > 0, original.height > 0 else { return size }
        let longest = max(original.width, original.height), shortest = min(original.width, original.height)
        return (size * longest + shortest - 1) / shortest
    }
}
