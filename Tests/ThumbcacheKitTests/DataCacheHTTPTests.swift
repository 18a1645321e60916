import DiskLru
import Foundation
import OriginTestSupport
import Testing
@testable import ThumbcacheKit

/// `DataCache`'s HTTP caching and disk tier against a real origin on 127.0.0.1: a second instance on the same
/// directory answers without the network, a 304 keeps the value and runs nothing again, stale-if-error, no-store.
extension DataCacheTests {
    @Test func aSecondInstanceOnTheDirectoryAnswersCachedWithoutTheNetwork() async throws {
        let body = Fixture.body()
        server.route("/u/7.json") { _ in Fixture.json(body) }
        let directory = Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let owner = Fixture.owner("user-7", server, "/u/7.json")
        let first = try DataCache<ProfileOwner>(maxCount: 20, directory: directory, maxDiskBytes: 1 << 20,
                                                configuration: Fixture.loopback)
        let (fetched, fetchedOutcome) = await first.fetchData(for: owner)
        #expect(fetched == Fixture.profile(body) && "\(fetchedOutcome)" == "FETCHED")
        await first.close()
        #expect(server.requestCount("/u/7.json") == 1)

        let second = try DataCache<ProfileOwner>(maxCount: 20, directory: directory, maxDiskBytes: 1 << 20,
                                                 configuration: Fixture.loopback)
        let (loaded, loadedOutcome) = await second.fetchData(for: owner)
        #expect(loaded == Fixture.profile(body) && "\(loadedOutcome)" == "CACHED")
        #expect(server.requestCount("/u/7.json") == 1, "the second instance made no request")
        #expect(ProfileOwner.processCount(body) == 2, "processData runs again on load")
        #expect(await second.fetchData(for: owner).1.description == "CACHED")
        #expect(ProfileOwner.processCount(body) == 2, "then the value is in memory")
        await second.close()
        server.shutdown()
    }

    @Test func theDiskEntryHoldsTheRecordAndTheBodyAsReceived() async throws {
        let body = Fixture.body()
        server.route("/u/8.json") { _ in Fixture.json(body, [("Cache-Control", "max-age=3600"), ("ETag", "\"e8\"")]) }
        let directory = Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try DataCache<ProfileOwner>(maxCount: 20, directory: directory, maxDiskBytes: 1 << 20,
                                                configuration: Fixture.loopback)
        _ = await cache.fetchData(for: Fixture.owner("User 8 (any text)", server, "/u/8.json"))
        await cache.close()
        let disk = try DiskLruCache.openReadOnly(directory: directory, appVersion: DataCacheStore.appVersion, valueCount: 2)
        #expect(disk.keys() == [SHA256Digest.hex("User 8 (any text)")])
        let snapshot = try #require(try disk.snapshot(forKey: SHA256Digest.hex("User 8 (any text)")))
        defer { snapshot.close() }
        let record = try #require(try DataCacheRecord.decode(snapshot.data(at: 0)))
        #expect(record.key == "User 8 (any text)" && record.url == server.url("/u/8.json") && record.bytes == body.count)
        #expect(record.headers["etag"] == "\"e8\"" && record.headers["cache-control"] == "max-age=3600")
        #expect(try snapshot.data(at: 1) == body)
        let marker = try String(contentsOf: directory.appendingPathComponent("CACHEDIR.TAG"), encoding: .utf8)
        #expect(marker.contains(DataCacheDirectory.markerPhrase))
        server.shutdown()
    }

    /// `no-cache` and an ETag: every use asks the origin, which answers 304 when the ETag still matches.
    private func serveRevalidated(_ path: String, _ body: Data) {
        server.route(path) { request in
            if request.headers["if-none-match"] == "\"v1\"" {
                return .respond(status: 304, headers: [("ETag", "\"v1\""), ("Cache-Control", "no-cache")], body: Data())
            }
            return Fixture.json(body, [("ETag", "\"v1\""), ("Cache-Control", "no-cache")])
        }
    }

    @Test func a304KeepsTheValueAndRunsNothingAgain() async throws {
        let body = Fixture.body()
        serveRevalidated("/etag.json", body)
        let cache = DataCache<ProfileOwner>(maxCount: 20, configuration: Fixture.loopback)
        let owner = Fixture.owner("user-etag", server, "/etag.json")
        let (first, firstOutcome) = await cache.fetchData(for: owner)
        #expect(first == Fixture.profile(body) && "\(firstOutcome)" == "FETCHED")
        let (second, secondOutcome) = await cache.fetchData(for: owner)
        #expect(second == first && "\(secondOutcome)" == "CACHED")
        let requests = server.requests("/etag.json")
        #expect(requests.count == 2, "no-cache: the second use revalidates")
        #expect(requests.first?.headers["if-none-match"] == nil && requests.last?.headers["if-none-match"] == "\"v1\"")
        #expect(ProfileOwner.processCount(body) == 1, "a 304 runs processData no more")
        await cache.close()
        server.shutdown()
    }

    @Test func aStaleDiskEntryIsRevalidatedByTheNextInstance() async throws {
        let body = Fixture.body()
        serveRevalidated("/etag-disk.json", body)
        let directory = Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let owner = Fixture.owner("user-etag-disk", server, "/etag-disk.json")
        let first = try DataCache<ProfileOwner>(maxCount: 20, directory: directory, maxDiskBytes: 1 << 20,
                                                configuration: Fixture.loopback)
        _ = await first.fetchData(for: owner)
        await first.close()
        let second = try DataCache<ProfileOwner>(maxCount: 20, directory: directory, maxDiskBytes: 1 << 20,
                                                 configuration: Fixture.loopback)
        let (value, outcome) = await second.fetchData(for: owner)
        #expect(value == Fixture.profile(body) && "\(outcome)" == "CACHED")
        #expect(server.requests("/etag-disk.json").last?.headers["if-none-match"] == "\"v1\"")
        #expect(ProfileOwner.processCount(body) == 2, "once per instance: the fetch, then the load")
        await second.close()
        server.shutdown()
    }

    @Test func aStaleValueStandsInForAFailingOriginWhenAllowed() async throws {
        let body = Fixture.body()
        let failing = Locked(false)
        server.route("/flaky.json") { _ in
            failing.withLock { $0 } ? .respond(status: 503, headers: [], body: Data("down".utf8))
                : Fixture.json(body, [("Cache-Control", "max-age=0, stale-if-error=3600")])
        }
        let cache = DataCache<ProfileOwner>(maxCount: 20, configuration: Fixture.loopback)
        let owner = Fixture.owner("user-flaky", server, "/flaky.json")
        #expect(await cache.fetchData(for: owner).1.description == "FETCHED")
        failing.withLock { $0 = true }
        let (value, outcome) = await cache.fetchData(for: owner)
        #expect(value == Fixture.profile(body) && "\(outcome)" == "CACHED")
        #expect(server.requestCount("/flaky.json") == 2)

        // Without the response's stale-if-error, the 503 surfaces.
        server.route("/down.json") { _ in
            failing.withLock { $0 } ? .respond(status: 503, headers: [], body: Data()) : Fixture.json(body, [("Cache-Control", "max-age=0")])
        }
        failing.withLock { $0 = false }
        let strict = Fixture.owner("user-down", server, "/down.json")
        _ = await cache.fetchData(for: strict)
        failing.withLock { $0 = true }
        #expect((await cache.fetchData(for: strict).1.error as? DataCacheError)?.httpStatus == 503)
        await cache.close()
        server.shutdown()
    }

    @Test func aResponseStatingNoFreshnessIsAskedForAgainUnlessGivenALifetime() async throws {
        let body = Fixture.body()
        server.route("/plain.json") { _ in Fixture.json(body, []) }
        let owner = Fixture.owner("user-plain", server, "/plain.json")
        let http = DataCache<ProfileOwner>(maxCount: 20, configuration: Fixture.loopback)
        for _ in 0..<2 { #expect(await http.fetchData(for: owner).1.description == "FETCHED") }
        #expect(server.requestCount("/plain.json") == 2, "HTTP's rule: no lifetime, no reuse")
        var configuration = Fixture.loopback
        configuration.lifetimeWhenUnstated = .seconds(Int.max)
        let seedLike = DataCache<ProfileOwner>(maxCount: 20, configuration: configuration)
        #expect(await seedLike.fetchData(for: owner).1.description == "FETCHED")
        #expect(await seedLike.fetchData(for: owner).1.description == "CACHED")
        #expect(server.requestCount("/plain.json") == 3)
        for cache in [http, seedLike] { await cache.close() }
        server.shutdown()
    }

    @Test func aBodyOverTheDownloadLimitFails() async throws {
        server.route("/large.json") { _ in Fixture.json(Fixture.body()) }
        var configuration = Fixture.loopback
        configuration.fetchLimits.maxDownloadBytes = 10
        let cache = DataCache<ProfileOwner>(maxCount: 20, configuration: configuration)
        let (value, outcome) = await cache.fetchData(for: Fixture.owner("user-large", server, "/large.json"))
        #expect(value == nil)
        guard case .tooLarge(_, _, 10) = outcome.error as? DataCacheError else {
            Issue.record("got \(outcome): \(String(describing: outcome.error))")
            return
        }
        #expect((outcome.error as? DataCacheError)?.description.contains("maxDownloadBytes") == true)
        await cache.close()
        server.shutdown()
    }

    @Test func noStoreIsNeitherInMemoryNorOnDisk() async throws {
        server.route("/secret.json") { _ in Fixture.json(Fixture.body(), [("Cache-Control", "no-store")]) }
        let directory = Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try DataCache<ProfileOwner>(maxCount: 20, directory: directory, maxDiskBytes: 1 << 20,
                                                configuration: Fixture.loopback)
        let owner = Fixture.owner("user-secret", server, "/secret.json")
        for _ in 0..<2 {
            let (value, outcome) = await cache.fetchData(for: owner)
            #expect(value != nil && "\(outcome)" == "FETCHED")
        }
        #expect(cache.count == 0 && server.requestCount("/secret.json") == 2)
        await cache.close()
        let disk = try DiskLruCache.openReadOnly(directory: directory, appVersion: DataCacheStore.appVersion, valueCount: 2)
        #expect(disk.keys().isEmpty)
        server.shutdown()
    }

    @Test func aDirectoryHoldingOtherFilesIsRefusedUntouched() async throws {
        let directory = Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let notes = directory.appendingPathComponent("notes.1")
        try Data("mine".utf8).write(to: notes)
        let error = #expect(throws: DataCacheError.self) {
            _ = try DataCache<ProfileOwner>(maxCount: 20, directory: directory, maxDiskBytes: 1 << 20)
        }
        guard case .notADataCacheDirectory(directory.path, _) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["notes.1"])

        server.shutdown()
    }

    @Test func theThumbnailCacheAndTheDataCacheRefuseEachOthersDirectory() async throws {
        let thumbnails = try PipelineHarness()
        let refusal = #expect(throws: DataCacheError.self) {
            _ = try DataCache<ProfileOwner>(maxCount: 20, directory: thumbnails.directory, maxDiskBytes: 1 << 20)
        }
        guard case .notADataCacheDirectory = refusal else { Issue.record("got \(String(describing: refusal))"); return }
        await thumbnails.close()
        let directory = Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await DataCache<ProfileOwner>(maxCount: 20, directory: directory, maxDiskBytes: 1 << 20).close()
        let before = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let error = #expect(throws: PipelineError.self) {
            _ = try ThumbnailPipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
        }
        guard case .notACacheDirectory = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == before)
        server.shutdown()
    }
}
