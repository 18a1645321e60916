import DiskLru
import Foundation
import NIOCore

/// A networked cache for any data: `fetchData(for:)` fetches an owner's bytes once, turns them into the app's
/// type with the owner's `processData`, keeps the result under the owner's key, and says whether it was FETCHED,
/// CACHED or FAILED. The SwiftyNetworkedDataCache seed's API, on the thumbnail pipeline's parts:
///
/// - Memory: a `MemoryCache` (LRU) capped by count and by cost; `Int.max` never trims. The seed trims FIFO (the
///   oldest insert goes even when it is read all the time); LRU drops what has not been asked for longest, so a
///   hot owner stays however old its entry is.
/// - No double fetch: concurrent calls for one key share one download and one `processData` (`Coalescer`).
/// - HTTP caching as the pipeline does it (`Freshness`, revalidation with ETag/Last-Modified where a 304 keeps
///   the value and runs nothing again, stale-if-error, `no-store`), fetched by the pipeline's `HTTPFetcher` with
///   its source policy, redirect checks, timeouts and size limit.
/// - Disk (optional): the body as received and its record in a DiskLru entry per key, so a new process answers
///   CACHED without the network while the response is fresh. `processData` runs again on load: `ProcessedData`
///   need not be Codable (an image, an app's class), the stored bytes are what the validators describe (a 304
///   keeps them valid), and a new version of `processData` applies to what is stored.
public final class DataCache<Owner: CachedDataOwner>: Sendable {
    public typealias Value = Owner.ProcessedData

    public let configuration: DataCacheConfiguration
    let memory: MemoryCache<String, Entry>
    private let store: DataCacheStore?
    private let flights = Coalescer<String, Answer>()
    private let cost: (@Sendable (Value) -> Int)?
    private let strategy: CacheStrategy
    private let fetchers: FetcherFactory
    private let state = Locked(State())

    /// A processed value in memory, with the response it came from and until when it may be used as is.
    struct Entry: Sendable {
        let value: Value
        let record: DataCacheRecord
        let freshUntil: Date
    }

    private struct Answer: Sendable {
        let value: Value?
        let outcome: DataCacheOutcome
    }

    private struct State {
        var closed = false
        var lastStoreError: DataCacheError?
    }

    /// Memory only, as the seed: at most `maxCount` values and `maxMemoryBytes` of cost (`Int.max`: no bound).
    /// `cost` is a value's cost; nil counts the bytes of the response it was made from. A value costing more than
    /// `maxMemoryBytes` is not kept.
    public convenience init(maxCount: Int, maxMemoryBytes: Int = .max, cost: (@Sendable (Value) -> Int)? = nil,
                            configuration: DataCacheConfiguration = DataCacheConfiguration()) {
        self.init(maxCount: maxCount, maxMemoryBytes: maxMemoryBytes, cost: cost, configuration: configuration, store: nil)
    }

    /// Also on disk, in `directory` (created if missing; one cache per directory, held locked while open), at most
    /// `maxDiskBytes` of responses, least recently used dropped first.
    public convenience init(maxCount: Int, directory: URL, maxDiskBytes: Int, maxMemoryBytes: Int = .max,
                            cost: (@Sendable (Value) -> Int)? = nil,
                            configuration: DataCacheConfiguration = DataCacheConfiguration()) throws(DataCacheError) {
        let store = try DataCacheStore(directory: directory, maxBytes: maxDiskBytes)
        self.init(maxCount: maxCount, maxMemoryBytes: maxMemoryBytes, cost: cost, configuration: configuration, store: store)
    }

    private init(maxCount: Int, maxMemoryBytes: Int, cost: (@Sendable (Value) -> Int)?,
                 configuration: DataCacheConfiguration, store: DataCacheStore?) {
        self.configuration = configuration
        // The per-entry cap is the whole cap: a value larger than the cache is not kept, any other one is.
        let bytes = max(0, maxMemoryBytes)
        memory = MemoryCache(limits: .init(totalCost: bytes, count: max(0, maxCount), entryCost: bytes),
                             memoryPressure: configuration.memoryPressure)
        self.cost = cost
        self.store = store
        strategy = CacheStrategy(role: configuration.cacheRole, staleIfError: configuration.staleIfError,
                                 lifetimeWhenUnstated: configuration.lifetimeWhenUnstated)
        fetchers = FetcherFactory(limits: configuration.fetchLimits, policy: configuration.sourcePolicy,
                                  resolver: configuration.hostResolver)
    }

    deinit {
        // AsyncHTTPClient traps on a client dropped before its shutdown (debug builds); the task keeps it till then.
        if let fetcher = fetchers.existing { Task { await fetcher.shutdown() } }
    }

    // MARK: - Public API

    /// The owner's data: from memory or disk when fresh (CACHED), else from the origin (FETCHED, or CACHED after a
    /// 304 or when a stale value stands in for a failed origin). Never throws: a failure is `.failed(error)` with
    /// a `DataCacheError`. `processData` returning nil gives `(nil, .fetched)`: the fetch worked, nothing is kept.
    public func fetchData(for owner: Owner) async -> (Value?, DataCacheOutcome) {
        let key = owner.cacheKey
        if state.withLock({ $0.closed }) { return (nil, .failed(DataCacheError.closed)) }
        if let entry = memory.value(forKey: key), entry.freshUntil > Date() { return (entry.value, .cached) }
        do {
            let answer = try await flights.value(for: key) { try await self.resolve(owner, key: key) }
            return (answer.value, answer.outcome)
        } catch is CancellationError {
            return (nil, .failed(DataCacheError.cancelled(key: key)))
        } catch {
            return (nil, .failed(error))
        }
    }

    /// The value kept in memory for `owner`, fresh or not, without any I/O (`NSCache.object(forKey:)`).
    public func cachedData(for owner: Owner) -> Value? {
        memory.value(forKey: owner.cacheKey)?.value
    }

    /// Forgets `owner`'s value, in memory and on disk. A fetch of it already under way still keeps its answer
    /// when it ends (as a URLCache store racing a removal would).
    public func remove(for owner: Owner) {
        forget(owner.cacheKey)
    }

    /// Forgets every value, in memory and on disk.
    public func removeAll() throws(DataCacheError) {
        memory.removeAll()
        guard let store else { return }
        do { try store.cache.evictAll() } catch { throw .disk(directory: store.cache.directory.path, error) }
    }

    /// Values in memory now, and their total cost.
    public var count: Int { memory.count }
    public var totalCost: Int { memory.totalCost }

    /// The last failure to write the disk tier (a full disk). Such a failure does not fail the call: the value
    /// is good and stays in memory, it is only not on disk.
    public var lastStoreError: DataCacheError? { state.withLock { $0.lastStoreError } }

    /// Stops the HTTP clients and closes the disk tier (releasing its directory lock). Later calls fail `.closed`.
    public func close() async {
        state.withLock { $0.closed = true }
        await fetchers.close()
        try? store?.cache.close()
        memory.removeAll()
    }

    /// Calls waiting on `owner`'s fetch now (tests wait on this rather than on a sleep).
    func waiters(for owner: Owner) async -> Int {
        await flights.waiters(for: owner.cacheKey)
    }

    // MARK: - Resolving a key (one flight at a time per key)

    private func resolve(_ owner: Owner, key: String) async throws(DataCacheError) -> Answer {
        let now = Date()
        // What is kept for the key: the processed value in memory, else the body on disk (processed now, so a
        // 304 or a failing origin can answer with it).
        var kept: (value: Value, record: DataCacheRecord)?
        if let entry = memory.value(forKey: key) {
            // A flight that ended just before this one began filled it.
            if entry.freshUntil > now { return Answer(value: entry.value, outcome: .cached) }
            kept = (entry.value, entry.record)
        } else if let stored = loadStored(key), let value = process(stored.body, key: key) {
            remember(value, stored.record, freshUntil: strategy.freshUntil(stored.record, now: now))
            kept = (value, stored.record)
        }
        let decision = strategy.decide(kept?.record, policy: .normal, now: now)
        if let kept, case .serveStored = decision { return Answer(value: kept.value, outcome: .cached) }
        return try await ask(owner, key: key, kept: kept, conditional: decision.conditionalHeaders)
    }

    /// The origin's answer, given what is kept: a new body, a 304 for the kept value, or the kept value standing
    /// in for a failure.
    private func ask(_ owner: Owner, key: String, kept: (value: Value, record: DataCacheRecord)?,
                     conditional: [(String, String)]) async throws(DataCacheError) -> Answer
    {
        let location: HTTPLocation
        do { location = try HTTPLocation(owner.url.absoluteString) } catch {
            throw .invalidURL(key: key, url: owner.url.absoluteString, reason: error.reason)
        }
        guard let fetcher = fetchers.fetcher(payload: .data(accept: configuration.accept)) else { throw .closed }
        let outcome: FetchOutcome
        do {
            outcome = try await fetcher.fetch(location, conditional: conditional)
        } catch {
            if let kept, strategy.staleServe(kept.record, after: error, policy: .normal, now: Date()) != nil {
                return Answer(value: kept.value, outcome: .cached)
            }
            throw DataCacheError(fetching: error, key: key)
        }
        switch outcome {
        case .notModified(let headers, let requestTime, let responseTime, let setsCookie):
            guard let kept else {
                throw .badResponse(key: key, url: location.url, reason: "304 Not Modified to an unconditional request")
            }
            let record = strategy.merge(kept.record, notModified: headers, requestTime: requestTime, responseTime: responseTime)
            if strategy.refusal(record.headers, setsCookie: setsCookie) != nil {
                forget(key)
            } else {
                noteStoreFailure { () throws(DiskLruError) in try store?.update(record) }
                remember(kept.value, record, freshUntil: strategy.freshUntil(record, now: Date()))
            }
            return Answer(value: kept.value, outcome: .cached)

        case .body(let fetched, let headers, let requestTime, let responseTime, let setsCookie):
            let body = fetched.inMemoryData ?? Data()
            // The new body supersedes whatever is kept, whether or not it makes a value.
            let value: Value?
            do { value = try Owner.processData(body) } catch {
                forget(key)
                throw .processDataFailed(key: key, url: location.url, error: error)
            }
            guard let value, strategy.refusal(headers, setsCookie: setsCookie) == nil else {
                forget(key)
                return Answer(value: value, outcome: .fetched)
            }
            let record = DataCacheRecord(key: key, url: location.url, headers: headers,
                                         requestTime: requestTime.timeIntervalSince1970,
                                         responseTime: responseTime.timeIntervalSince1970, bytes: body.count)
            noteStoreFailure { () throws(DiskLruError) in try store?.save(record, body: body) }
            remember(value, record, freshUntil: strategy.freshUntil(record, now: Date()))
            return Answer(value: value, outcome: .fetched)
        }
    }

    // MARK: - Helpers

    private func remember(_ value: Value, _ record: DataCacheRecord, freshUntil: Date) {
        memory.set(Entry(value: value, record: record, freshUntil: freshUntil), forKey: record.key,
                   cost: cost?(value) ?? record.bytes)
    }

    private func forget(_ key: String) {
        memory.removeValue(forKey: key)
        noteStoreFailure { () throws(DiskLruError) in try store?.remove(key) }
    }

    /// The disk entry of `key`; a read failure is a miss (the origin is asked), and is remembered.
    private func loadStored(_ key: String) -> DataCacheStore.Stored? {
        guard let store else { return nil }
        do { return try store.load(key) } catch {
            state.withLock { $0.lastStoreError = .disk(directory: store.cache.directory.path, error) }
            return nil
        }
    }

    /// Stored bytes made a value again. When `processData` no longer accepts them (a new version of the app), the
    /// entry goes and the origin is asked.
    private func process(_ body: Data, key: String) -> Value? {
        guard let value = try? Owner.processData(body) else {
            forget(key)
            return nil
        }
        return value
    }

    private func noteStoreFailure(_ write: () throws(DiskLruError) -> Void) {
        do { try write() } catch {
            state.withLock { $0.lastStoreError = .disk(directory: store?.cache.directory.path ?? "", error) }
        }
    }
}
