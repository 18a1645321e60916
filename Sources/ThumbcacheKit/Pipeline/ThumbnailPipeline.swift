import DiskLru
import Foundation
import ImageDecode
import NIOCore
import NIOSSL
import Synchronization

/// What to do about the origin.
public enum FetchPolicy: String, Sendable {
    /// Serve fresh cache entries; revalidate stale ones; fetch misses.
    case normal
    /// Never touch the network: serve whatever is cached, fresh or not; a miss is an error.
    case offline
    /// Revalidate with the origin even when the cached entry is fresh.
    case refresh
}

/// The thumbnail pipeline: fetch → decode → resize → encode → store, doing the least work possible.
///
/// A request is answered from the memory cache, else from the disk entry (if fresh, or after a 304), else
/// from a download. Concurrent requests for one source share one download; for one source and size, one
/// decode and resize. Each source is one DiskLru entry: metadata, original, one value per ladder size holding
/// that size's thumbnails in each format asked for.
public final class ThumbnailPipeline: Sendable {
    public static let version = UserAgent.version

    public let configuration: PipelineConfiguration
    package let memory: MemoryCache<String, MemoryEntry>
    /// The entries (originals, ladder thumbnails) and the processed variants on disk.
    let store: RenditionStore
    let thumbnailer = Thumbnailer()
    let origins = Coalescer<String, Origin>()
    let renders = Coalescer<String, ThumbnailResult>()
    let unstored = UnstoredOriginals()
    let sessionStats = Locked(CacheStats())
    private let cancelledRenders = Atomic(0)
    private let statsURL: URL
    /// `downloads/`, beside `entries/`, so storing a download stays on one filesystem.
    let downloads: URL
    /// This process's folder in `downloads/` for files in flight (`FetchedOriginal`), made at the first download.
    let downloadFolder = Locked<DownloadFolder?>(nil)
    /// The HTTP cache decisions (`CacheStrategy`), shared with `DataCache`.
    let strategy: CacheStrategy
    let fetchers: FetcherFactory
    /// A shared cache's freshness reads `s-maxage` (`CacheRole`).
    private var shared: Bool { configuration.cacheRole.isShared }

    /// The state of a source once the origin question is settled.
    struct Origin: Sendable {
        var metadata: CacheMetadata
        var servedFrom: ServedFrom
        /// Bytes fetched just now and not yet stored: they are stored with the first thumbnail that decodes,
        /// so an original that cannot be decoded is never cached.
        var downloaded: FetchedOriginal?
        var downloadedBytes: Int
        /// Set when the origin's answer may not be kept (`Storability`): nothing goes to disk or memory.
        var uncacheable: Uncacheable? = nil
        var storable: Bool { uncacheable == nil }
        var entry: EntryStore.Entry?
        /// Set when the stored entry stands in for an origin that failed (stale-if-error).
        var staleBecause: StaleServe? = nil
        /// How long settling the origin question took (download or revalidation included).
        var fetchDuration: Duration = .zero
        /// The render place the gate promised before the origin was asked (`RenderGate.admit`): taken by the first
        /// render, given back once the request is done.
        var admission: RenderAdmission? = nil
        /// Until when the stored entry is fresh, from the freshness it was judged by: the request reuses it rather
        /// than parsing the headers again (a fresh warm run spent a sixth of its time in two parses per size).
        var freshUntil: Date? = nil
    }

    public init(configuration: PipelineConfiguration, onLockWait: @Sendable (String) -> Void = { _ in }) throws(PipelineError) {
        self.configuration = configuration
        memory = MemoryCache(limits: configuration.memoryLimits, memoryPressure: configuration.memoryPressure)
        let directory = CacheDirectory(url: configuration.cacheDirectory)
        statsURL = directory.stats
        downloads = directory.downloads
        fetchers = FetcherFactory(limits: configuration.fetchLimits, policy: configuration.sourcePolicy,
                                  resolver: configuration.hostResolver,
                                  trustRoots: try FetcherFactory.trustRoots(from: configuration.trustedCAFiles))
        strategy = CacheStrategy(role: configuration.cacheRole, staleIfError: configuration.staleIfError)
        if configuration.readOnly {
            _ = try CacheDirectory.inspect(directory.url)
        } else {
            _ = try CacheDirectory.prepare(directory.url)
        }
        store = try RenditionStore(configuration, onLockWait: onLockWait)
        // Only reads `downloads/` when nothing is abandoned there, the usual case: a disk hit writes nothing.
        if !configuration.readOnly { DownloadFolder.removeAbandoned(in: downloads) }
    }

    /// Requests waiting on `source`'s download now (tests wait on this rather than on a sleep).
    func downloadWaiters(for source: ImageSource, policy: FetchPolicy = .normal) async -> Int {
        await origins.waiters(for: "\(keyed(source).cacheKey)|\(policy.rawValue)")
    }

    // MARK: - Request path (`ThumbnailPipeline+Rendition`)

    /// The origin question settled for `source` (shared by concurrent requests), then `render` run once per
    /// result (shared too), its result kept in memory: the part of a miss both renditions share.
    func settled(_ source: ImageSource, key: String, memoryKey: String, policy: FetchPolicy,
                 render: @escaping @Sendable (Origin) async throws -> ThumbnailResult) async throws(PipelineError) -> ThumbnailResult {
        do {
            let origin = try await settledOrigin(source, key: key, policy: policy)
            // The promised render place, if the render did not take it, goes back once this request is done.
            defer { origin.admission?.release() }
            let renderKey = "\(memoryKey)|\(origin.metadata.responseTime)|\(origin.servedFrom.rawValue)"
            var result = try await renders.value(for: renderKey) {
                let started = ContinuousClock.now
                var result = try await render(origin)
                result.renderDuration = started.duration(to: .now)
                if result.contentDigest == nil { result.contentDigest = SHA256Digest.hex(bytes: result.data) }
                return result
            }
            let freshUntil: Date
            if let known = origin.freshUntil {
                freshUntil = known  // judged fresh (or served offline) in `resolveOrigin`
            } else {
                let now = Date()
                let freshness = strategy.freshness(origin.metadata, now: now)
                // `no-cache`: revalidated before every use, so never a memory hit, and a server says so downstream.
                freshUntil = freshness.freshUntil(now: now)
                result.revalidatesEveryUse = freshness.cacheControl.noCache
            }
            (result.freshUntil, result.fetchDuration) = (freshUntil, origin.fetchDuration)
            result.lastModified = origin.metadata.headers["last-modified"].flatMap(HTTPDate.parse)
            result.uncacheable = origin.uncacheable
            // Kept in memory only while the disk holds the original it was made from: a render of an old original
            // that ends after a new one was stored (or after a purge) must not be served from memory either.
            if origin.storable, store.storedOriginalDigest(key: key) == origin.metadata.original.digest {
                memory.set(MemoryEntry(thumbnail: result, freshUntil: freshUntil), forKey: memoryKey, cost: result.data.count)
            }
            sessionStats.withLock { $0.record(result.servedFrom) }
            return result
        } catch {
            sessionStats.withLock { $0.failures += 1 }
            throw Self.pipelineError(error, source: source)
        }
    }

    /// A request's failure as the `PipelineError` it throws.
    static func pipelineError(_ error: any Error, source: ImageSource) -> PipelineError {
        if let error = error as? PipelineError { return error }
        if error is CancellationError { return .cancelled("the request for \(source.normalized) stopped waiting") }
        return .network(url: source.normalized, reason: "\(error)")
    }

    /// `source` under this pipeline's key rule: every public entry point keys its source here, once.
    func keyed(_ source: ImageSource) -> ImageSource {
        source.keyed(by: configuration.cacheKeyRule)
    }

    func memoryHit(_ memoryKey: String, acceptingStale: Bool) -> ThumbnailResult? {
        guard let hit = memory.value(forKey: memoryKey), acceptingStale || hit.freshUntil > Date() else { return nil }
        var result = hit.thumbnail
        (result.servedFrom, result.bytesDownloaded, result.rendered, result.staleBecause) = (.memory, 0, false, nil)
        result.notCachedBecause = nil
        (result.freshUntil, result.fetchDuration, result.renderDuration) = (hit.freshUntil, nil, nil)
        sessionStats.withLock { $0.record(.memory) }
        return result
    }

    /// What is cached for `source`, without fetching anything.
    package func info(for source: ImageSource) throws(PipelineError) -> EntryInfo? {
        let source = keyed(source)
        guard let entry = try store.entry(forKey: source.cacheKey) else { return nil }
        defer { entry.snapshot.close() }
        let lengths = (0..<store.ladder.valueCount).map { entry.snapshot.length(at: $0) }
        return EntryInfo(metadata: entry.metadata, cacheKey: source.cacheKey,
                         freshness: Freshness(metadata: entry.metadata, now: Date(), shared: shared),
                         storedBytes: lengths.reduce(0, +), valueLengths: lengths,
                         processed: store.variants?.list(ofSource: source.cacheKey) ?? [])
    }

    /// The DiskLru journal of the cache directory, its records written out first (the journal is buffered): for
    /// showing what an entry's writes recorded (`/demo`'s entry panel), read-only.
    package func journalFile() -> URL {
        store.journalFile()
    }

    /// Counters over every process that used this cache directory, plus its current size.
    public func statistics() -> (stats: CacheStats, entries: Int, bytes: Int64, maxBytes: Int64) {
        let total = CacheStats.load(from: statsURL) + sessionStats.withLock { $0 }
        return (total, store.entries.cache.entryCount, store.size, configuration.maxDiskSize)
    }

    /// Removes every cached entry (`removeAll()`) and resets the counters.
    public func clear() throws(PipelineError) {
        try removeAll()
        try? store.withAccess { CacheStats().save(to: statsURL) }
        sessionStats.withLock { $0 = CacheStats() }
    }

    /// Saves the counters, closes the cache (releasing the directory lock) and the HTTP client.
    public func close() async {
        let session = sessionStats.withLock { stats in
            defer { stats = CacheStats() }
            return stats
        }
        if session != CacheStats(), !configuration.readOnly {
            // Inside an access: another process adding its counts at the same time would lose one side's.
            try? store.withAccess { (CacheStats.load(from: statsURL) + session).save(to: statsURL) }
        }
        store.close()
        unstored.removeAll()
        downloadFolder.withLock { $0 = nil }
        await fetchers.shutdown()
    }

    // MARK: - Rendering

    /// Renders stopped before their end since the start, because nobody waited for them any more (`cancellable`).
    package var rendersCancelled: Int { cancelledRenders.load(ordering: .relaxed) }

    /// Runs a render with a `RenderCancellation` that this task's cancellation sets: the coalescer cancels a
    /// render's task when its last waiter leaves (a client gone, a deadline passed), and the render, on a worker
    /// thread that cannot see the task, stops at its next check rather than spend seconds no one receives.
    func cancellable<T: Sendable>(
        _ render: @Sendable (RenderCancellation) async throws(PipelineError) -> T
    ) async throws(PipelineError) -> T {
        let cancellation = RenderCancellation()
        let outcome: Result<T, PipelineError> = await withTaskCancellationHandler {
            do throws(PipelineError) { return .success(try await render(cancellation)) } catch { return .failure(error) }
        } onCancel: {
            cancellation.cancel()
        }
        switch outcome {
        case .success(let value): return value
        case .failure(.image(let url, .cancelled)):
            cancelledRenders.add(1, ordering: .relaxed)
            throw .cancelled("nobody waited for the render of \(url) any more")
        case .failure(let error): throw error
        }
    }

    /// A render that did not finish because nobody waited any more, or that its options made too costly, still
    /// stores the download it was given (when the origin allows): the next request for the source, perhaps with
    /// other options, reads it from disk rather than download it again. (An original that cannot be decoded,
    /// or is over the pixel or memory limits, is never stored.)
    func keepDownload(of origin: Origin, key: String, after error: any Error) {
        switch error as? PipelineError {
        case .cancelled, .processing: keepOriginal(of: origin, key: key)
        default: return
        }
    }

    /// Stores a just-downloaded original without any rendition of it (a failed store is only a miss later).
    func keepOriginal(of origin: Origin, key: String) {
        guard origin.storable, let downloaded = origin.downloaded else { return }
        _ = try? saveOriginal(downloaded, of: origin, key: key, thumbnail: nil)
    }

    /// Drops every rendition of a source from the memory cache (a walk of its keys: done only when a source is
    /// removed or its original changed, never on a hit). Returns whether there was any.
    @discardableResult
    func removeFromMemory(_ key: String) -> Bool {
        var removed = false
        for memoryKey in memory.keysInLruOrder where memoryKey.hasPrefix(key + "/") {
            memory.removeValue(forKey: memoryKey)
            removed = true
        }
        return removed
    }

    func removeEntry(_ key: String) {
        store.remove(key: key)
    }

    /// Stores a downloaded original (with a ladder thumbnail of it, if any); the source's variants go with its old
    /// original (`RenditionStore.saveOriginal`).
    func saveOriginal(_ downloaded: FetchedOriginal, of origin: Origin, key: String, thumbnail: StoredThumbnail?) throws(PipelineError) -> Int {
        try store.saveOriginal(key: key, metadata: origin.metadata, original: downloaded, thumbnail: thumbnail)
    }
}
