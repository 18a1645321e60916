import Foundation
import Testing
@testable import ThumbcacheKit
@testable import ThumbcacheServer

@Suite(.serialized) struct LoadTests {
    /// 50 concurrent requests for one new source and size: one origin request, one render. The origin holds its
    /// answer until all 50 wait on the one download, so their sharing it follows from what is held, not from a delay
    /// being long enough; a request that reaches the render after it ended reads what it stored
    /// (`ThumbnailPipeline.storedSinceSettled`), so the order the 50 run in after the download does not matter
    /// either (a loaded machine once ran one of them late and counted a second render).
    @Test func concurrentRequestsShareOneFetchAndOneRender() async throws {
        let origin = try await TestOrigin()
        let latch = OriginLoadTests.Latch()
        OriginLoadTests.heldImage(origin, "/a.jpg", until: latch)
        // No deadline a loaded machine could reach while the 50 wait for CPU or for the latch: a 504 or a read
        // timeout is not what this tests.
        let server = try await ServerHarness(configure: { $0.queue = 0; $0.workers = 1; $0.timeout = .seconds(24 * 3600) },
                                             pipeline: { ($0.fetchLimits.readTimeout, $0.fetchLimits.totalTimeout) = (.seconds(24 * 3600), .seconds(24 * 3600)) })
        let path = server.path(origin.url("/a.jpg"), size: 96)
        let source = try ImageSource(origin.url("/a.jpg"))
        let answered = Locked(0)
        let requests = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        defer { answered.withLock { $0 += 1 } }
                        return try await server.request(path).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }
        // Until all 50 wait on the download (or one was answered without it, which the checks below report).
        while await server.endpoints.pipeline.downloadWaiters(for: source) < 50, answered.withLock({ $0 }) == 0 {
            try await Task.sleep(for: .milliseconds(5))
        }
        latch.open()
        let statuses = try await requests.value
        #expect(statuses.count == 50 && statuses.allSatisfy { $0 == 200 }, "\(statuses)")
        #expect(origin.count("/a.jpg") == 1)
        let limiter = server.endpoints.limiter
        #expect(limiter.rendersStarted == 1, "coalesced waiters do not take a render slot or count against the queue")
        // After the shared work, with the queue at 0: served from memory, not refused, not rendered again.
        let later = try await server.request(path)
        #expect(later.status == 200 && later.header("X-Thumbcache") == "memory", "\(later.status)")
        #expect(limiter.rendersStarted == 1 && origin.count("/a.jpg") == 1)
        let load = limiter.load
        #expect(load.running == 0 && load.queued == 0 && load.promised == 0)
        await server.stop()
        await origin.stop()
    }

    /// Workers busy and the queue full: a request that needs a render gets 503 with Retry-After at once,
    /// while a memory hit is still served; once the slots free, renders go through again.
    @Test func overloadIsRefusedAtOnceWhileHitsAreServed() async throws {
        let origin = try await TestOrigin()
        origin.image("/hit.jpg", Fixtures.jpeg)
        origin.image("/miss.jpg", Fixtures.png, type: "image/png")
        let server = try await ServerHarness { $0.workers = 1; $0.queue = 1 }
        let hit = server.path(origin.url("/hit.jpg"), size: 64)
        #expect(try await server.request(hit).status == 200)
        // Hold the one worker and the one queue place with renders that wait for the test.
        let release = DispatchSemaphore(value: 0)
        let limiter = server.endpoints.limiter
        let held = (0..<2).map { _ in
            Task { try await limiter.run { release.wait(); return 0 } }
        }
        while limiter.load.running + limiter.load.queued < 2 { try await Task.sleep(for: .milliseconds(10)) }
        let refused = try await server.request(server.path(origin.url("/miss.jpg"), size: 64))
        #expect(refused.status == 503 && refused.header("Retry-After") == "1" && refused.json["error"] == "overloaded")
        let served = try await server.request(hit)
        #expect(served.status == 200 && served.header("X-Thumbcache") == "memory")
        release.signal()
        release.signal()
        for task in held { _ = try await task.value }
        #expect(try await server.request(server.path(origin.url("/miss.jpg"), size: 64)).status == 200)
        let metrics = String(decoding: try await server.request("/metrics").body, as: UTF8.self)
        #expect(metrics.contains("thumbcache_refusals_total{reason=\"overloaded\"} 1"))
        await server.stop()
        await origin.stop()
    }
}
