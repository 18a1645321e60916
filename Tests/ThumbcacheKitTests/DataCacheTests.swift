import Foundation
import OriginTestSupport
import Testing
@testable import ThumbcacheKit

/// `DataCache` in memory against a real origin on 127.0.0.1 that counts its requests: owner keys, one fetch for
/// concurrent callers, caps in LRU order, nil and failures (HTTP caching and the disk tier: DataCacheHTTPTests.swift).
/// Each test has an origin of its own.
@Suite struct DataCacheTests {
    let server: OriginServer

    init() throws { server = try OriginServer() }

    typealias Fixture = DataCacheFixture

    @Test func theOwnersKeyFindsTheEntryWhateverTheURLsToken() async throws {
        let body = Fixture.body()
        server.route("/u/42.json?token=a") { _ in Fixture.json(body) }
        server.route("/u/42.json?token=b") { _ in Fixture.json(Fixture.body("other")) }
        let cache = DataCache<ProfileOwner>(maxCount: 20, configuration: Fixture.loopback)
        let (first, firstOutcome) = await cache.fetchData(for: Fixture.owner("user-42", server, "/u/42.json?token=a"))
        #expect(first == Fixture.profile(body) && "\(firstOutcome)" == "FETCHED")
        let (second, secondOutcome) = await cache.fetchData(for: Fixture.owner("user-42", server, "/u/42.json?token=b"))
        #expect(second == Fixture.profile(body) && "\(secondOutcome)" == "CACHED")
        #expect(server.requestCount("/u/42.json?token=b") == 0, "a new token on the same key fetches nothing")
        let (_, otherKey) = await cache.fetchData(for: Fixture.owner("user-43", server, "/u/42.json?token=a"))
        #expect("\(otherKey)" == "FETCHED", "another key is another entry, whatever its URL")
        #expect(server.requestCount("/u/42.json?token=a") == 2)
        await cache.close()
        server.shutdown()
    }

    @Test func tenConcurrentCallersShareOneDownloadAndOneProcessData() async throws {
        let body = Fixture.body()
        // The origin keeps the body's last byte until the test releases it: the download lasts until all ten wait.
        server.route("/slow.json") { _ in .held(body: body, until: "go") }
        let cache = DataCache<ProfileOwner>(maxCount: 20, configuration: Fixture.loopback)
        let owner = Fixture.owner("user-slow", server, "/slow.json")
        let callers = (0..<10).map { _ in Task { await cache.fetchData(for: owner) } }
        #expect(await CoalescerTests.eventually {
            await cache.waiters(for: owner) == 10 || server.requestCount("/slow.json") > 1
        })
        server.release("go")
        for caller in callers {
            let (value, outcome) = await caller.value
            #expect(value == Fixture.profile(body) && "\(outcome)" == "FETCHED")
        }
        #expect(server.requestCount("/slow.json") == 1)
        #expect(ProfileOwner.processCount(body) == 1)
        #expect(await cache.fetchData(for: owner).1.description == "CACHED")
        await cache.close()
        server.shutdown()
    }

    /// Serves `/p/<name>.json` for each name, and returns their bodies.
    private func serve(_ names: [String]) -> [String: Data] {
        var bodies: [String: Data] = [:]
        for name in names {
            let body = Fixture.body(name)
            bodies[name] = body
            server.route("/p/\(name).json") { _ in Fixture.json(body) }
        }
        return bodies
    }

    private func owner(_ name: String) -> ProfileOwner { Fixture.owner(name, server, "/p/\(name).json") }

    @Test func theCountCapDropsTheLeastRecentlyUsed() async throws {
        _ = serve(["a", "b", "c"])
        let cache = DataCache<ProfileOwner>(maxCount: 2, configuration: Fixture.loopback)
        _ = await cache.fetchData(for: owner("a"))
        _ = await cache.fetchData(for: owner("b"))
        #expect(await cache.fetchData(for: owner("a")).1.description == "CACHED")  // a is now the most recent
        _ = await cache.fetchData(for: owner("c"))
        // FIFO (the seed) would drop a, the oldest insert; LRU drops b, the least recently used.
        #expect(cache.memory.keysInLruOrder == ["a", "c"])
        #expect(await cache.fetchData(for: owner("b")).1.description == "FETCHED")
        #expect(server.requestCount("/p/b.json") == 2 && server.requestCount("/p/a.json") == 1)
        #expect(cache.count == 2)
        await cache.close()
        server.shutdown()
    }

    @Test func theByteCapDropsTheLeastRecentlyUsedAndIntMaxNeverTrims() async throws {
        let bodies = serve(["a", "b", "c"])
        let sizes = bodies.values.map(\.count)
        #expect(Set(sizes).count == 1, "equal sizes: \(sizes)")
        let size = sizes[0]
        // Room for two bodies, not three (the default cost is the response's byte count).
        let cache = DataCache<ProfileOwner>(maxCount: .max, maxMemoryBytes: 2 * size + size / 2, configuration: Fixture.loopback)
        for name in ["a", "b", "a", "c"] { _ = await cache.fetchData(for: owner(name)) }
        #expect(cache.memory.keysInLruOrder == ["a", "c"] && cache.totalCost == 2 * size)
        // A cost closure: each value costs 10, so three fit in 30 and a fourth pushes out the least recently used.
        _ = serve(["d"])
        let counted = DataCache<ProfileOwner>(maxCount: .max, maxMemoryBytes: 30, cost: { _ in 10 }, configuration: Fixture.loopback)
        for name in ["a", "b", "c", "a", "d"] { _ = await counted.fetchData(for: owner(name)) }
        #expect(counted.memory.keysInLruOrder == ["c", "a", "d"] && counted.totalCost == 30)
        let unbounded = DataCache<ProfileOwner>(maxCount: .max, configuration: Fixture.loopback)
        for name in ["a", "b", "c", "d"] { _ = await unbounded.fetchData(for: owner(name)) }
        #expect(unbounded.count == 4)
        for cache in [cache, counted, unbounded] { await cache.close() }
        server.shutdown()
    }

    @Test func aValueCostingMoreThanTheCapIsNotKept() async throws {
        _ = serve(["big"])
        let cache = DataCache<ProfileOwner>(maxCount: 10, maxMemoryBytes: 100, cost: { _ in 101 }, configuration: Fixture.loopback)
        let (value, outcome) = await cache.fetchData(for: owner("big"))
        #expect(value != nil && "\(outcome)" == "FETCHED")
        #expect(cache.count == 0 && cache.cachedData(for: owner("big")) == nil)
        #expect(await cache.fetchData(for: owner("big")).1.description == "FETCHED")
        await cache.close()
        server.shutdown()
    }

    @Test func nilFromProcessDataIsFetchedAndNotCached() async throws {
        server.route("/null.json") { _ in Fixture.json(Data("null".utf8)) }
        let cache = DataCache<ProfileOwner>(maxCount: 20, configuration: Fixture.loopback)
        let owner = Fixture.owner("user-null", server, "/null.json")
        for _ in 0..<2 {
            let (value, outcome) = await cache.fetchData(for: owner)
            #expect(value == nil && "\(outcome)" == "FETCHED")
        }
        #expect(server.requestCount("/null.json") == 2, "nothing was kept, so the second call asks again")
        #expect(cache.count == 0)
        await cache.close()
        server.shutdown()
    }

    @Test func aNotFoundFailsAndIsNotCached() async throws {
        let cache = DataCache<ProfileOwner>(maxCount: 20, configuration: Fixture.loopback)
        let owner = Fixture.owner("user-missing", server, "/missing.json")
        for _ in 0..<2 {
            let (value, outcome) = await cache.fetchData(for: owner)
            #expect(value == nil && "\(outcome)" == "FAILED")
            let error = try #require(outcome.error as? DataCacheError)
            #expect(error.httpStatus == 404)
            #expect(error.description.contains("user-missing") && error.description.contains("HTTP 404"), "\(error)")
        }
        #expect(server.requestCount("/missing.json") == 2)
        await cache.close()
        server.shutdown()
    }

    @Test func aRefusedConnectionFails() async throws {
        let port = try RefusingPort()
        let cache = DataCache<ProfileOwner>(maxCount: 20, configuration: Fixture.loopback)
        let owner = ProfileOwner(cacheKey: "user-refused", url: URL(string: "http://127.0.0.1:\(port.port)/u.json")!)
        let (value, outcome) = await cache.fetchData(for: owner)
        #expect(value == nil)
        guard case .network(let key, _, let reason) = outcome.error as? DataCacheError else {
            Issue.record("got \(outcome): \(String(describing: outcome.error))")
            return
        }
        #expect(key == "user-refused" && reason == "connection refused")
        await cache.close()
        server.shutdown()
    }

    @Test func aThrowingProcessDataFailsAndKeepsNothing() async throws {
        let body = Data("not json \(UUID())".utf8)
        server.route("/bad.json") { _ in Fixture.json(body) }
        let cache = DataCache<ProfileOwner>(maxCount: 20, configuration: Fixture.loopback)
        let (value, outcome) = await cache.fetchData(for: Fixture.owner("user-bad", server, "/bad.json"))
        #expect(value == nil)
        guard case .processDataFailed(let key, _, let error) = outcome.error as? DataCacheError else {
            Issue.record("got \(outcome): \(String(describing: outcome.error))")
            return
        }
        #expect(key == "user-bad" && error is DecodingError)
        #expect(cache.count == 0 && ProfileOwner.processCount(body) == 1)
        await cache.close()
        server.shutdown()
    }

    @Test func loopbackIsRefusedUnlessThePolicyAllowsIt() async throws {
        server.route("/local.json") { _ in Fixture.json(Fixture.body()) }
        let cache = DataCache<ProfileOwner>(maxCount: 20)
        let (value, outcome) = await cache.fetchData(for: Fixture.owner("user-local", server, "/local.json"))
        #expect(value == nil)
        guard case .refused(_, _, let reason) = outcome.error as? DataCacheError else {
            Issue.record("got \(outcome): \(String(describing: outcome.error))")
            return
        }
        #expect(reason.contains("loopback"), "\(reason)")
        #expect(server.totalRequests == 0 && server.connectionCount == 0, "a refused source is never connected to")
        await cache.close()
        server.shutdown()
    }

    @Test func removeForgetsOneOwnerAndRemoveAllEveryOne() async throws {
        _ = serve(["a", "b"])
        let cache = DataCache<ProfileOwner>(maxCount: 20, configuration: Fixture.loopback)
        for name in ["a", "b"] { _ = await cache.fetchData(for: owner(name)) }
        cache.remove(for: owner("a"))
        #expect(cache.cachedData(for: owner("a")) == nil && cache.cachedData(for: owner("b")) != nil)
        try cache.removeAll()
        #expect(cache.count == 0)
        #expect(await cache.fetchData(for: owner("b")).1.description == "FETCHED")
        await cache.close()
        guard case .closed = await cache.fetchData(for: owner("b")).1.error as? DataCacheError else {
            Issue.record("a closed cache fails with .closed")
            return
        }
        server.shutdown()
    }
}
