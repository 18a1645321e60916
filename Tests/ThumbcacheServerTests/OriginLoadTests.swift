import Foundation
import Hummingbird
import NIOCore
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// Issue 23 §5 and §6: what slow or many downloads may cost. Downloads the origin holds until the test opens a
/// `Latch`, so every verdict follows from what is held, not from how long anything takes.
@Suite(.serialized) struct OriginLoadTests {
    /// Opened once; every waiter (before or after) goes on.
    final class Latch: Sendable {
        private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let go = state.withLock { state in
                    if state.open { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if go { continuation.resume() }
            }
        }

        func open() {
            let waiters = state.withLock { state in
                state.open = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    static func heldImage(_ origin: TestOrigin, _ path: String, until latch: Latch) {
        origin.route(path) { _ in
            await latch.wait()
            return Response(status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "max-age=600"],
                            body: .init(byteBuffer: ByteBuffer(bytes: Fixtures.jpeg)))
        }
    }

    /// Polls `condition` (a hang guard of 600 s, not a verdict: the condition is what the test waits for).
    static func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(600)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw WaitFailed(what: what) }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    struct WaitFailed: Error { let what: String }

    /// Every render place taken by downloads in flight: further misses are 503 before any byte is fetched, and
    /// the held downloads still render once they arrive (their places were promised).
    @Test func aRefusedMissCostsNoDownload() async throws {
        let origin = try await TestOrigin()
        let latch = Latch()
        for i in 0..<2 { Self.heldImage(origin, "/held\(i).jpg", until: latch) }
        for i in 0..<6 { origin.image("/more\(i).jpg", Fixtures.jpeg) }
        // The held downloads wait for the latch, not for a clock: a request deadline or the fetcher's read timeout
        // passing while the steps below run (a minute, then 30 s, were not enough under ThreadSanitizer on a busy
        // machine) would give their places back.
        let server = try await ServerHarness(configure: { $0.workers = 1; $0.queue = 1; $0.timeout = .seconds(600) },
                                             pipeline: { $0.fetchLimits.readTimeout = .seconds(600); $0.fetchLimits.totalTimeout = .seconds(600) })
        let held = (0..<2).map { i in
            Task { try await server.request(server.path(origin.url("/held\(i).jpg"), size: 64)) }
        }
        try await Self.waitUntil("both held downloads reached the origin") { origin.count("/held0.jpg") + origin.count("/held1.jpg") == 2 }
        #expect(server.endpoints.limiter.load.promised == 2)
        for i in 0..<6 {
            let answer = try await server.request(server.path(origin.url("/more\(i).jpg"), size: 64))
            #expect(answer.status == 503 && answer.json["error"] == "overloaded", "\(i): \(answer.status)")
        }
        #expect((0..<6).allSatisfy { origin.count("/more\($0).jpg") == 0 }, "a refused request cost no download")
        latch.open()
        for task in held { #expect(try await task.value.status == 200) }
        let load = server.endpoints.limiter.load
        #expect(load.running == 0 && load.queued == 0 && load.promised == 0, "every promised place was used or given back")
        #expect(try await server.request(server.path(origin.url("/more0.jpg"), size: 64)).status == 200)
        await server.stop()
        await origin.stop()
    }

    /// The accounting of promised places: a full gate refuses, a place is used once or given back once, and one
    /// dropped unused (a download whose requests all left before it ended) comes back by itself.
    @Test func promisedPlacesAreCountedExactly() async throws {
        let limiter = RenderLimiter(workers: 1, queue: 1)
        let first = try #require(try limiter.admit())
        try withExtendedLifetime(try limiter.admit()) { _ in
            #expect(limiter.load.promised == 2)
            #expect(throws: PipelineError.self) { try limiter.admit() }
        }
        #expect(limiter.load.promised == 1, "dropped unused: its place came back")
        first.release()
        first.release()
        #expect(limiter.load.promised == 0, "given back once, however often released")
        let taken = try #require(try limiter.admit())
        #expect(try await limiter.run(reserving: 0, of: nil, admission: taken) { 7 } == 7)
        taken.release()
        #expect(limiter.load.promised == 0 && limiter.load.running == 0, "a used place is not given back twice")
        await limiter.shutdown()
    }

    /// A promised place goes back when no render follows: a 404, a body that is not an image, a refused source.
    @Test func placesComeBackWhenNoRenderFollows() async throws {
        let origin = try await TestOrigin()
        origin.route("/html.jpg") { _ in Response(status: .ok, headers: [.contentType: "text/html"], body: .init(byteBuffer: ByteBuffer(string: "<html>"))) }
        origin.image("/ok.jpg", Fixtures.jpeg)
        let server = try await ServerHarness { $0.workers = 1; $0.queue = 0 }
        for path in ["/missing.jpg", "/html.jpg", "/missing.jpg"] {
            #expect(try await server.request(server.path(origin.url(path), size: 64)).status != 200)
            #expect(server.endpoints.limiter.load.promised == 0, "\(path)")
        }
        #expect(try await server.request(server.path(origin.url("/ok.jpg"), size: 64)).status == 200, "workers 1, queue 0: the one place is free")
        await server.stop()
        await origin.stop()
    }

    /// Eight downloads held open on one origin (as trickling sources would) do not make a ninth source on the same
    /// origin wait: the client's connections to a host are sized to the downloads the server admits.
    @Test func slowSourcesOnOneOriginDoNotHoldUpTheOthers() async throws {
        let origin = try await TestOrigin()
        let latch = Latch()
        for i in 0..<8 { Self.heldImage(origin, "/slow\(i).jpg", until: latch) }
        origin.image("/fast.jpg", Fixtures.jpeg)
        // Held by the latch, not a clock (see aRefusedMissCostsNoDownload).
        let server = try await ServerHarness(configure: { $0.workers = 2; $0.queue = 8; $0.timeout = .seconds(600) },
                                             pipeline: { $0.fetchLimits.readTimeout = .seconds(600); $0.fetchLimits.totalTimeout = .seconds(600) })
        let slow = (0..<8).map { i in
            Task { try await server.request(server.path(origin.url("/slow\(i).jpg"), size: 64)) }
        }
        try await Self.waitUntil("eight held downloads") { (0..<8).reduce(0) { $0 + origin.count("/slow\($1).jpg") } == 8 }
        let fast = try await server.request(server.path(origin.url("/fast.jpg"), size: 64))
        #expect(fast.status == 200 && fast.header("X-Thumbcache") == "network", "answered while eight others hold their connections")
        latch.open()
        for task in slow { let answer = try await task.value; #expect(answer.status == 200, "\(answer.status) \(answer.json)") }
        await server.stop()
        await origin.stop()
    }
}
