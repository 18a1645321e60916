import Foundation
import ImageDecode
import Testing
@testable import ThumbcacheKit

@Suite struct FreshnessTests {
    func metadata(_ headers: [String: String], fetchedSecondsAgo: Double = 0, url: String = "http://x/a.jpg") -> CacheMetadata {
        let now = Date()
        return CacheMetadata(url: url, headers: headers, requestTime: now.addingTimeInterval(-fetchedSecondsAgo - 1),
                             responseTime: now.addingTimeInterval(-fetchedSecondsAgo),
                             original: .init(format: "jpeg", width: 1, height: 1, bytes: 1, alpha: false, digest: "d"))
    }

    @Test func maxAgeWinsOverExpires() {
        let date = HTTPDate.format(Date().addingTimeInterval(-10))
        let fresh = Freshness(metadata: metadata(["cache-control": "public, max-age=100", "date": date,
                                                  "expires": HTTPDate.format(Date().addingTimeInterval(-5))]), now: Date())
        #expect(fresh.source == "max-age" && fresh.isFresh)
        #expect(abs(fresh.age - 11) < 2, "apparent age from Date plus the request's round trip")
    }

    /// Issue 14 E19: `info` said "stale by -90 s" for an entry with 90 s of max-age left under no-cache.
    @Test func summaryNeverShowsANegativeCount() {
        let fresh = Freshness(metadata: metadata(["cache-control": "max-age=92"]), now: Date())
        #expect(fresh.summary.hasPrefix("fresh for 9") && fresh.summary.hasSuffix(" s (max-age)"), "\(fresh.summary)")
        let stale = Freshness(metadata: metadata(["cache-control": "max-age=10"], fetchedSecondsAgo: 100), now: Date())
        #expect(stale.summary.hasPrefix("stale by 9") && stale.summary.hasSuffix(" s (max-age)"), "\(stale.summary)")
        let noCache = Freshness(metadata: metadata(["cache-control": "no-cache, max-age=92"]), now: Date())
        #expect(!noCache.isFresh)
        #expect(noCache.summary.hasPrefix("revalidated on every use (no-cache; by max-age it would be fresh for 9"), "\(noCache.summary)")
        for f in [fresh, stale, noCache] { #expect(!f.summary.contains(" -"), "\(f.summary)") }
    }

    @Test func ageHeaderCounts() {
        let f = Freshness(metadata: metadata(["cache-control": "max-age=60", "age": "100"]), now: Date())
        #expect(!f.isFresh && f.age >= 100)
    }

    @Test func expiresRelativeToDate() {
        let served = Date().addingTimeInterval(-30)
        let f = Freshness(metadata: metadata(["date": HTTPDate.format(served), "expires": HTTPDate.format(served.addingTimeInterval(60))],
                                             fetchedSecondsAgo: 30), now: Date())
        #expect(f.source == "expires" && f.isFresh && abs(f.remaining - 30) < 3)
        let invalid = Freshness(metadata: metadata(["expires": "0"]), now: Date())
        #expect(!invalid.isFresh, "an invalid Expires means already expired")
    }

    @Test func heuristicIsTenPercentOfLastModifiedAge() {
        let served = Date()
        let f = Freshness(metadata: metadata(["date": HTTPDate.format(served), "last-modified": HTTPDate.format(served.addingTimeInterval(-1000))]), now: Date())
        #expect(f.source == "heuristic" && abs(f.lifetime - 100) < 2)
        let query = Freshness(metadata: metadata(["last-modified": HTTPDate.format(served.addingTimeInterval(-1000))], url: "http://x/a.jpg?v=1"), now: Date())
        #expect(query.lifetime == 0, "no heuristic freshness for URLs with a query, as OkHttp")
    }

    @Test func noCacheAndNoStoreAndMustRevalidate() {
        #expect(!Freshness(metadata: metadata(["cache-control": "no-cache, max-age=999"]), now: Date()).isFresh)
        let parsed = CacheControl(parsing: ["No-Store", "must-revalidate, max-age=\"5\""])
        #expect(parsed.noStore && parsed.mustRevalidate && parsed.maxAge == 5)
        #expect(CacheControl(parsing: ["max-age=abc"]).maxAge == 0, "a malformed max-age is stale, not forever")
    }

    @Test func staleIfErrorAllowanceComesFromTheResponseOrTheClient() {
        let down = PipelineError.network(url: "http://x/a.jpg", reason: "connection refused")
        // max-age=60 and Age 160: 100 s past fresh.
        let plain = metadata(["cache-control": "max-age=60", "age": "160"])
        #expect(StaleIfError(clientAllowance: nil).serve(plain, after: down, now: Date()) == nil, "no allowance: the error surfaces")
        #expect(StaleIfError(clientAllowance: 50).serve(plain, after: down, now: Date()) == nil, "100 s stale is over a 50 s allowance")
        let served = StaleIfError(clientAllowance: 300).serve(plain, after: down, now: Date())
        #expect(served?.originError == down.description)
        #expect(abs((served?.staleness ?? 0) - 100) < 3)

        let origin = metadata(["cache-control": "max-age=60, stale-if-error=200", "age": "160"])
        #expect(CacheControl(parsing: ["max-age=60, stale-if-error=200"]).staleIfError == 200)
        #expect(StaleIfError(clientAllowance: nil).serve(origin, after: down, now: Date()) != nil, "the origin's own allowance")
        #expect(StaleIfError(clientAllowance: 10).serve(origin, after: down, now: Date()) != nil, "the larger allowance wins")

        let mustRevalidate = metadata(["cache-control": "max-age=60, must-revalidate", "age": "160"])
        #expect(StaleIfError(clientAllowance: 3600).serve(mustRevalidate, after: down, now: Date()) == nil)
        let noCache = metadata(["cache-control": "no-cache, max-age=60", "age": "160"])
        #expect(StaleIfError(clientAllowance: 3600).serve(noCache, after: down, now: Date()) == nil)
        let explicit = metadata(["cache-control": "max-age=60, must-revalidate, stale-if-error=600", "age": "160"])
        #expect(StaleIfError(clientAllowance: nil).serve(explicit, after: down, now: Date()) != nil,
                "RFC 5861: the response's stale-if-error applies regardless of other freshness information")
    }

    @Test func onlyOriginFailuresAllowAStaleCopy() {
        let url = "http://x/a.jpg"
        let origin = metadata(["cache-control": "max-age=0"])
        let rule = StaleIfError(clientAllowance: 3600)
        for status in [500, 502, 503, 504] {
            #expect(rule.serve(origin, after: .httpStatus(url: url, status: status), now: Date()) != nil, "\(status)")
        }
        for error: PipelineError in [.httpStatus(url: url, status: 404), .httpStatus(url: url, status: 501),
                                     .notAnImage(url: url, contentType: "text/html"), .downloadTooLarge(url: url, limit: 1)] {
            #expect(rule.serve(origin, after: error, now: Date()) == nil, "\(error)")
        }
    }

    @Test func statsWrittenBeforeTheStaleCounterStillLoad() throws {
        let old = Data(#"{"bytesDownloaded":10,"diskHits":2,"failures":1,"memoryHits":3,"misses":4,"revalidated":5}"#.utf8)
        let stats = try JSONDecoder().decode(CacheStats.self, from: old)
        #expect(stats.diskHits == 2 && stats.memoryHits == 3 && stats.revalidated == 5 && stats.staleServed == 0)
        #expect(stats.hits == 10 && stats.misses == 4 && stats.bytesDownloaded == 10)
    }

    @Test func httpDatesInAllThreeForms() {
        let expected = Date(timeIntervalSince1970: 784111777)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == expected)
        #expect(HTTPDate.parse("garbage") == nil)
        #expect(HTTPDate.parse(HTTPDate.format(expected)) == expected)
    }
}

@Suite struct SourceTests {
    @Test func sha256KnownVectors() {
        #expect(SHA256Digest.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256Digest.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256Digest.hex(String(repeating: "a", count: 1000)) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    @Test func normalisationSharesEntries() throws {
        let a = try ImageSource("HTTP://Example.COM:80/a.jpg#frag")
        let b = try ImageSource("http://example.com/a.jpg")
        #expect(a.normalized == "http://example.com/a.jpg" && a.cacheKey == b.cacheKey)
        #expect(a.cacheKey.count == 64)
        #expect(try ImageSource("http://example.com/a.jpg?x=1").cacheKey != b.cacheKey)
        #expect(try ImageSource("https://example.com:443").normalized == "https://example.com/")
        let file = try ImageSource("/tmp/../tmp/x.jpg")
        #expect(file.kind == .file && file.normalized == "file:///tmp/x.jpg")
        #expect(try ImageSource("file:///tmp/x.jpg").cacheKey == file.cacheKey)
        #expect(throws: PipelineError.self) { try ImageSource("ftp://example.com/a.jpg") }
        #expect(throws: PipelineError.self) { try ImageSource("http://") }
    }
}

@Suite struct MemoryCacheTests {
    @Test func evictsLeastRecentlyUsedByCostAndCount() {
        // Out of the machine's memory-pressure monitor: a trim while the machine is short would change the LRU order.
        let cache = MemoryCache<String, Int>(limits: .init(totalCost: 100, count: 3, entryCost: 60), memoryPressure: nil)
        cache.set(1, forKey: "a", cost: 40)
        cache.set(2, forKey: "b", cost: 40)
        #expect(cache.value(forKey: "a") == 1)  // a is now most recent
        cache.set(3, forKey: "c", cost: 40)     // 120 > 100: b goes
        #expect(cache.keysInLruOrder == ["a", "c"] && cache.totalCost == 80)
        #expect(!cache.set(4, forKey: "huge", cost: 61), "over the per-entry cap")
        #expect(cache.value(forKey: "huge") == nil)
        cache.set(5, forKey: "d", cost: 1)
        cache.set(6, forKey: "e", cost: 1)      // 4 entries > 3: a goes
        #expect(cache.keysInLruOrder == ["c", "d", "e"])
        cache.set(7, forKey: "c", cost: 10)     // replace updates cost and recency
        #expect(cache.keysInLruOrder == ["d", "e", "c"] && cache.totalCost == 12)
        cache.removeValue(forKey: "d")
        #expect(cache.count == 2)
    }

    @Test func concurrentUseIsSafe() async {
        let cache = MemoryCache<Int, Int>(limits: .init(totalCost: 1000, count: 50), memoryPressure: nil)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for i in 0..<2000 {
                        cache.set(i, forKey: (i * worker) % 97, cost: 7)
                        _ = cache.value(forKey: i % 97)
                    }
                }
            }
        }
        #expect(cache.count <= 50 && cache.totalCost <= 1000)
        #expect(cache.totalCost == cache.count * 7)
    }
}

@Suite struct CoalescerTests {
    @Test func oneRunPerKeyAndCancelledWaitersLeaveQuietly() async throws {
        let coalescer = Coalescer<String, Int>()
        let gate = AsyncGate()
        let work: @Sendable () async throws -> Int = {
            await gate.wait()
            return 42
        }
        let waiters = (0..<10).map { _ in Task { try await coalescer.value(for: "k", work: work) } }
        let quitter = Task { try await coalescer.value(for: "k", work: work) }
        // All eleven waiting (the quitter alone would be the last waiter, and its leaving would cancel the work).
        #expect(await Self.eventually { await coalescer.waiters(for: "k") == 11 })
        quitter.cancel()
        await #expect(throws: CancellationError.self) { try await quitter.value }
        await gate.open()
        for waiter in waiters { #expect(try await waiter.value == 42) }
        #expect(await coalescer.started == 1)
        #expect(try await coalescer.value(for: "k") { 7 } == 7, "a finished flight is not reused")
    }

    /// Polls `condition` (another task reaching a state), for at most `seconds`: a hang guard only, as a state that
    /// never comes is the failure these tests look for. 120 s was exceeded by the whole suite beside
    /// `stress-ng --cpu 2` (a task waited 155 s for the two-thread pool), so it is 600 s.
    static func eventually(within seconds: Double = 600, _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return await condition()
    }

    /// Work that sleeps until cancelled, recording whether it started and how it ended.
    final class SleepingWork: Sendable {
        let started = Locked(false)
        let ended = Locked<String?>(nil)
        let value: Int

        init(value: Int) { self.value = value }

        var work: @Sendable () async throws -> Int {
            { [self] in
                started.withLock { $0 = true }
                do {
                    try await Task.sleep(for: .seconds(86_400))  // ends by cancellation only (60 s could pass on a starved pool)
                } catch {
                    ended.withLock { $0 = error is CancellationError ? "cancelled" : "\(error)" }
                    throw error
                }
                ended.withLock { $0 = "finished" }
                return value
            }
        }
    }

    /// Issue 11 §5: the only waiter gives up (a request deadline), so nobody needs the work: it is cancelled.
    @Test func theLastWaiterLeavingCancelsTheWork() async throws {
        let coalescer = Coalescer<String, Int>()
        let sleeper = SleepingWork(value: 1)
        let waiter = Task { try await coalescer.value(for: "k", work: sleeper.work) }
        #expect(await Self.eventually { sleeper.started.withLock { $0 } })
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(await Self.eventually { sleeper.ended.withLock { $0 } != nil })
        #expect(sleeper.ended.withLock { $0 } == "cancelled", "the work saw the cancellation instead of sleeping on")
    }

    /// One of two waiters gives up: the work goes on, uncancelled, for the other.
    @Test func workGoesOnWhileAnotherWaiterRemains() async throws {
        let coalescer = Coalescer<String, Int>()
        let gate = AsyncGate()
        let cancelledAtEnd = Locked<Bool?>(nil)
        let work: @Sendable () async throws -> Int = {
            await gate.wait()
            cancelledAtEnd.withLock { $0 = Task.isCancelled }
            return 42
        }
        let staying = Task { try await coalescer.value(for: "k", work: work) }
        let leaving = Task { try await coalescer.value(for: "k", work: work) }
        #expect(await Self.eventually { await coalescer.waiters(for: "k") == 2 })
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        #expect(await coalescer.waiters(for: "k") == 1)
        await gate.open()
        #expect(try await staying.value == 42)
        #expect(cancelledAtEnd.withLock { $0 } == false)
        #expect(await coalescer.started == 1)
    }

    /// After the last waiter left, the next request starts new work rather than joining the cancelled one; the
    /// cancelled work finishing later answers nobody and does not end the new flight.
    @Test func aRequestAfterCancellationStartsNewWork() async throws {
        let coalescer = Coalescer<String, Int>()
        let oldGate = AsyncGate(), newGate = AsyncGate()
        // Ignores cancellation, as a decode on a worker does: it finishes after its flight was given up.
        let old: @Sendable () async throws -> Int = {
            await oldGate.wait()
            return 1
        }
        let first = Task { try await coalescer.value(for: "k", work: old) }
        #expect(await Self.eventually { await coalescer.waiters(for: "k") == 1 })
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        #expect(await coalescer.waiters(for: "k") == 0, "the flight was forgotten with its last waiter")

        let second = Task { try await coalescer.value(for: "k") { await newGate.wait(); return 2 } }
        #expect(await Self.eventually { await coalescer.waiters(for: "k") == 1 })
        #expect(await coalescer.started == 2, "new work, not the cancelled flight")
        await oldGate.open()
        // Its end reached the actor (a sleep of 50 ms only made that likely: on a loaded machine the check below
        // could run first and prove nothing).
        #expect(await Self.eventually { await coalescer.ended == 1 })
        #expect(await coalescer.waiters(for: "k") == 1, "the old flight's end left the new flight alone")
        let third = Task { try await coalescer.value(for: "k") { 3 } }
        #expect(await Self.eventually { await coalescer.waiters(for: "k") == 2 })
        await newGate.open()
        #expect(try await second.value == 2)
        #expect(try await third.value == 2, "joined the new flight")
        #expect(await coalescer.started == 2)
    }
}

actor AsyncGate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiting.append($0) }
    }
    func open() {
        isOpen = true
        waiting.forEach { $0.resume() }
        waiting.removeAll()
    }
}

@Suite struct FileSourceTests {
    @Test func fileSourceIsRevalidatedByStat() async throws {
        let harness = try PipelineHarness()
        let file = harness.directory.deletingLastPathComponent().appendingPathComponent("src-\(UUID().uuidString).jpg")
        try Fixtures.jpeg.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let source = try ImageSource(file.path)
        #expect(try await harness.pipeline.thumbnail(for: source, size: 64).servedFrom == .network)
        try await harness.reopen()
        #expect(try await harness.pipeline.thumbnail(for: source, size: 64).servedFrom == .revalidated)
        try Fixtures.png.write(to: file)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: file.path)
        try await harness.reopen()
        let changed = try await harness.pipeline.thumbnail(for: source, size: 64)
        #expect(changed.servedFrom == .network)
        #expect(try harness.pipeline.info(for: source)?.metadata.original.format == "png")
        await #expect(throws: PipelineError.self) {
            try await harness.pipeline.thumbnail(for: try ImageSource("/nonexistent/x.jpg"), size: 64)
        }
        await harness.close()
    }
}

@Suite struct EntryStoreTests {
    /// A store in a fresh temporary directory, closed and deleted after `body`.
    static func withStore(_ body: (EntryStore, URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try EntryStore(directory: directory, maxSize: 10 << 20, ladder: .standard,
                                   access: StoreAccess(lockTimeout: .seconds(1)))
        defer { try? store.cache.close() }
        try body(store, directory)
    }

    /// Stores `data` as the original of key "k", fetched at `time`.
    static func save(_ data: Data, in store: EntryStore, at time: Date = Date()) throws {
        let metadata = CacheMetadata(url: "http://x/a.jpg", headers: [:], requestTime: time, responseTime: time,
                                     original: .init(format: "jpeg", width: 1, height: 1, bytes: data.count, digest: SHA256Digest.hex(bytes: data)))
        try store.save(key: "k", metadata: metadata, original: FetchedOriginal(data: data), thumbnail: nil)
    }

    @Test func storedOriginalsAreComparedByteForByte() throws { try Self.withStore { store, directory in
        let bytes = Data((0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })  // spans several read chunks
        try Self.save(bytes, in: store)
        let entry = try #require(try store.entry(forKey: "k"))
        defer { entry.snapshot.close() }
        #expect(try entry.original() == bytes)

        func downloaded(_ data: Data) throws -> FetchedOriginal {
            let path = directory.appendingPathComponent("download-\(UUID().uuidString)").path
            try data.write(to: URL(fileURLWithPath: path))
            return FetchedOriginal(downloadedTo: path, byteCount: data.count)
        }
        var lastByteDiffers = bytes
        lastByteDiffers[bytes.count - 1] ^= 1
        for make in [{ FetchedOriginal(data: $0) }, { try downloaded($0) }] as [(Data) throws -> FetchedOriginal] {
            #expect(try entry.hasOriginal(equalTo: make(bytes)))
            #expect(try !entry.hasOriginal(equalTo: make(lastByteDiffers)))
            #expect(try !entry.hasOriginal(equalTo: make(bytes.dropLast())))
        }
        let file = try downloaded(bytes)
        guard case .file(let path) = file.image else { Issue.record("expected a file"); return }
        withExtendedLifetime(file) { #expect(FileManager.default.fileExists(atPath: path)) }
    } }

    @Test func aDownloadFileIsRemovedWithItsLastReference() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var path = ""
        do {
            let download = try DownloadFile(in: directory)
            path = download.path
            try Data("\u{89}PNG\r\n\u{1A}\n and more".utf8).withUnsafeBytes { try download.append($0) }
            #expect(download.byteCount == 18 && download.head.count == 18)  // the head keeps up to 64 bytes (an AVIF ftyp lists its brands)
            let original = try download.finish()
            #expect(original.byteCount == 18 && FileManager.default.fileExists(atPath: path))
        }
        #expect(!FileManager.default.fileExists(atPath: path), "FetchedOriginal's deinit removed it")
        do {
            let abandoned = try DownloadFile(in: directory)
            path = abandoned.path
        }
        #expect(!FileManager.default.fileExists(atPath: path), "an unfinished download removes itself")
    }

    @Test func anOpenedOriginalKeepsItsBytesWhenTheEntryIsReplacedOrRemoved() throws { try Self.withStore { store, _ in
        try Self.save(Fixtures.jpeg, in: store, at: Date(timeIntervalSince1970: 1000))
        let entry = try #require(try store.entry(forKey: "k"))
        let original = try entry.openOriginal()
        entry.snapshot.close()
        try Self.save(Fixtures.otherJpeg, in: store, at: Date(timeIntervalSince1970: 2000))  // renames a new file over key.1
        guard case .file(let path) = original.image else { Issue.record("expected a file on Linux"); return }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Fixtures.jpeg)
        _ = try store.cache.remove("k")
        let thumbnail = try Thumbnailer().makeThumbnail(from: original.image, ThumbnailRequest(size: 64))
        #expect(thumbnail.data == (try Thumbnailer().makeThumbnail(from: Fixtures.jpeg, ThumbnailRequest(size: 64))).data)
    } }
}

@Suite struct UnstoredOriginalsTests {
    static func origin(fetchedAt responseTime: Date, storable: Bool = true) -> ThumbnailPipeline.Origin {
        let metadata = CacheMetadata(url: "http://x/a.jpg", headers: [:], requestTime: responseTime, responseTime: responseTime,
                                     original: .init(format: "jpeg", width: 1, height: 1, bytes: 3, digest: SHA256Digest.hex(bytes: [1, 2, 3])))
        return .init(metadata: metadata, servedFrom: .network, downloaded: FetchedOriginal(data: Data([1, 2, 3])),
                     downloadedBytes: 3, uncacheable: storable ? nil : .noStore, entry: nil)
    }

    @Test func heldUntilReleasedByItsOwnFetch() {
        let unstored = UnstoredOriginals()
        let older = Date(timeIntervalSince1970: 1000), newer = Date(timeIntervalSince1970: 2000)
        unstored.hold(Self.origin(fetchedAt: older), for: "k")
        unstored.hold(Self.origin(fetchedAt: newer), for: "k")
        unstored.release("k", fetchedAt: older.timeIntervalSince1970)
        #expect(unstored.origin(for: "k")?.metadata.responseTime == newer.timeIntervalSince1970,
                "a render of an older download does not release a newer one")
        unstored.release("k", fetchedAt: newer.timeIntervalSince1970)
        #expect(unstored.origin(for: "k") == nil && unstored.count == 0)
        unstored.hold(Self.origin(fetchedAt: newer, storable: false), for: "k")
        #expect(unstored.count == 0, "a no-store download is never held")
    }

    @Test func aDownloadWhoseRenderNeverRanExpires() async throws {
        let unstored = UnstoredOriginals(maxAge: .milliseconds(50))
        unstored.hold(Self.origin(fetchedAt: Date()), for: "a")
        try await Task.sleep(for: .milliseconds(100))
        #expect(unstored.origin(for: "a") == nil)
        unstored.hold(Self.origin(fetchedAt: Date()), for: "b")
        try await Task.sleep(for: .milliseconds(100))
        unstored.hold(Self.origin(fetchedAt: Date()), for: "c")
        #expect(unstored.count == 1, "holding another drops the expired ones")
    }
}
