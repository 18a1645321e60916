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
        let removedFromMemory = removeFromMemory(key)
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
                guard let variants else {
                    // Variants off: a `variants/` written since the start (by a process with a share) goes too.
                    let unused = try Self.removeUnusedVariants(in: CacheDirectory(url: configuration.cacheDirectory), configuration)
                    return (counted.0, counted.1 + unused)
                }
                try variants.evictAll()
                return counted
            }
        } catch let error as PipelineError {
            throw error
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

    /// Deletes the variants a configuration without a variant share (`--variant-disk-size 0`) finds in `variants/`
    /// (left by a run with a share): nothing would write or evict them, so they would hold part of
    /// `--max-disk-size` for good if counted, and lie outside it if not. Deleted through DiskLru, under its lock,
    /// so a process using them meanwhile is not corrupted; the folder and its empty lock file stay (a process may
    /// be waiting on that lock). Returns the bytes deleted.
    @discardableResult
    static func removeUnusedVariants(in directory: CacheDirectory, _ configuration: PipelineConfiguration) throws(PipelineError) -> Int64 {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.variants.path)) ?? []
        guard names.contains(where: { $0 != DiskLruCache.lockFileName }) else { return 0 }
        // No bound to keep while it is deleted: `.max` and `.manual`, so opening it trims nothing first.
        let unused = try VariantStore(directory: directory.variants, maxSize: .max, lockTimeout: configuration.lockTimeout,
                                      lockMode: configuration.lockMode, readOnly: false, cleanup: .manual)
        let bytes = unused.cache.size
        do { try unused.cache.delete() } catch { throw .cache(error) }
        return bytes
    }

    /// How much a short-grammar thumbnail scales the upright original: its longest side to `size` (`contain`), or
    /// its shortest (`cover`, a centre square); at least 1 when that would enlarge (it never does).
    static func scale(of size: Int, fit: FitMode, _ original: CacheMetadata.Original) -> Double {
        guard original.width > 0, original.height > 0 else { return 1 }
        let side = fit == .cover ? min(original.width, original.height) : max(original.width, original.height)
        return min(1, Double(size) / Double(side))
    }
}
