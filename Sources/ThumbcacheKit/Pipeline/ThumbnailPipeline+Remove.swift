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
        let removedFromDisk = store.remove(key: key)
        let removedFromMemory = removeFromMemory(key)
        return removedFromDisk || removedFromMemory
    }

    /// Empties the disk and memory caches (every entry: original, thumbnails, processed variants): URLCache's
    /// `removeAllCachedResponses()`, and a running server's `POST /admin/purge-all`. The counters are kept
    /// (`clear()` also resets them). Returns what was removed.
    @discardableResult
    public func removeAll() throws(PipelineError) -> RemovedEntries {
        let (entries, bytes) = try store.removeAll()
        let memoryThumbnails = memory.keysInLruOrder.count
        memory.removeAll()
        unstored.removeAll()
        return RemovedEntries(entries: entries, bytes: bytes, memoryThumbnails: memoryThumbnails)
    }

    /// How much a short-grammar thumbnail scales the upright original: its longest side to `size` (`contain`), or
    /// its shortest (`cover`, a centre square); at least 1 when that would enlarge (it never does).
    static func scale(of size: Int, fit: FitMode, _ original: CacheMetadata.Original) -> Double {
        guard original.width > 0, original.height > 0 else { return 1 }
        let side = fit == .cover ? min(original.width, original.height) : max(original.width, original.height)
        return min(1, Double(size) / Double(side))
    }
}
