import Dispatch
import Foundation
import Hummingbird
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// Issue 11 §5: a request past its deadline gets 504, and its work is cancelled unless another request shares it.
@Suite(.serialized) struct CancellationTests {
    /// An origin answer that sends its head and the first bytes of a JPEG at once, then one byte every 100 ms
    /// for 300 s, and records when (and whether) the client closed the connection before the end. The body
    /// outlasts any test, so "closed before the end" never depends on how fast the machine is (it was 30 s).
    final class Trickle: Sendable {
        private let state = Locked<(started: ContinuousClock.Instant?, closed: ContinuousClock.Instant?, closings: Int, finished: Bool)>(
            (nil, nil, 0, false))
        static let head = Fixtures.jpeg.prefix(64)
        static let trickled = 3000

        func register(on origin: TestOrigin, at path: String) {
            origin.route(path) { _ in
                let length = Self.head.count + Self.trickled
                return Response(
                    status: .ok,
                    headers: [.contentType: "image/jpeg", .contentLength: String(length), .cacheControl: "max-age=60"],
                    body: ResponseBody { writer in
                        self.state.withLock { $0.started = .now }
                        do {
                            try await writer.write(ByteBuffer(bytes: Self.head))
                            for _ in 0..<Self.trickled {
                                try await Task.sleep(for: .milliseconds(100))
                                try await writer.write(ByteBuffer(bytes: [0]))
                            }
                        } catch {
                            // The connection closed (the write failed, or the server cancelled the handler).
                            self.state.withLock { state in
                                state.closed = state.closed ?? .now
                                state.closings += 1
                            }
                            throw error
                        }
                        self.state.withLock { $0.finished = true }
                        try await writer.finish(nil)
                    })
            }
        }

        var started: Bool { state.withLock { $0.started != nil } }
        var closedAt: ContinuousClock.Instant? { state.withLock { $0.closed } }
        /// Connections the client closed before the body's end.
        var closings: Int { state.withLock { $0.closings } }
        /// The whole body was sent: nobody closed the connection.
        var finished: Bool { state.withLock { $0.finished } }
    }

    static func eventually(within seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline && !condition() { try? await Task.sleep(for: .milliseconds(20)) }
        return condition()
    }

    /// The only request for a slow download times out: 504 at the deadline, and the download is cancelled, so the
    /// origin sees its connection closed before its body's end. (Typically 504 at 1.01 s and the close 0.1 s later;
    /// the checks ask only for the order, which a busy machine cannot change: waits are hang guards.)
    @Test func aTimedOutDownloadClosesTheOriginConnection() async throws {
        let origin = try await TestOrigin()
        let trickle = Trickle()
        trickle.register(on: origin, at: "/slow.jpg")
        let server = try await ServerHarness { $0.timeout = .seconds(1) }
        let answer = try await server.request(server.path(origin.url("/slow.jpg"), size: 64))
        #expect(answer.status == 504 && answer.json["error"] == "timeout", "\(answer.status) \(answer.json)")
        #expect(!trickle.finished, "504 at the 1 s deadline, before the body's end")
        #expect(await Self.eventually(within: 600) { trickle.closedAt != nil || trickle.finished })
        #expect(!trickle.finished && trickle.closings == 1, "the origin's connection was closed before the body's end")
        #expect(origin.count("/slow.jpg") == 1)
        await server.stop()
        await origin.stop()
    }

    /// Two requests share one download; one times out: the download goes on for the other, and is cancelled
    /// once that one gives up too.
    @Test func aSharedDownloadGoesOnUntilItsLastRequestLeaves() async throws {
        let origin = try await TestOrigin()
        let trickle = Trickle()
        trickle.register(on: origin, at: "/shared.jpg")
        let server = try await ServerHarness { $0.timeout = .seconds(1) }
        // A request with no deadline of its own starts the download; one through the server (1 s deadline) joins it.
        let source = try ImageSource(origin.url("/shared.jpg"))
        let pipeline = server.endpoints.pipeline
        let patient = Task { try await pipeline.thumbnail(for: source, size: 64) }
        #expect(await Self.eventually(within: 600) { trickle.started })
        let timedOut = Task { try await server.request(server.path(origin.url("/shared.jpg"), size: 64)) }
        #expect(try await timedOut.value.status == 504)
        try await Task.sleep(for: .milliseconds(1500))
        #expect(trickle.closedAt == nil, "the download went on for the request still waiting")
        let left = ContinuousClock.now
        patient.cancel()
        await #expect(throws: PipelineError.self) { try await patient.value }
        #expect(await Self.eventually(within: 600) { trickle.closedAt != nil || trickle.finished })
        #expect(!trickle.finished && trickle.closedAt != nil, "cancelled once its last request left")
        if let closed = trickle.closedAt { #expect(closed >= left, "not before the last request left") }
        #expect(origin.count("/shared.jpg") == 1, "one download for both requests")
        await server.stop()
        await origin.stop()
    }

    /// Through the server: the one worker busy, a request whose render waits in the queue times out: 504, the
    /// render leaves the queue at once and never runs (no thumbnail was stored; its download was, so the next
    /// request renders from the disk rather than download again).
    @Test func aTimedOutRequestsQueuedRenderNeverRuns() async throws {
        let origin = try await TestOrigin()
        origin.image("/queued.jpg", Fixtures.jpeg)
        // The queued request times out whatever the deadline (the worker is held).
        let server = try await ServerHarness { $0.timeout = .seconds(3); $0.workers = 1; $0.queue = 4 }
        let limiter = server.endpoints.limiter
        let release = DispatchSemaphore(value: 0)
        let held = Task { try await limiter.run { release.wait(); return 0 } }
        #expect(await Self.eventually(within: 600) { limiter.load.running == 1 })
        let path = server.path(origin.url("/queued.jpg"), size: 64)
        let answer = try await server.request(path)
        #expect(answer.status == 504, "\(answer.status) \(answer.json)")
        let left = await Self.eventually(within: 600) { limiter.load.queued == 0 }  // the worker is held meanwhile
        #expect(left, "the timed-out request's render left the queue while the worker was still busy")
        release.signal()
        _ = try await held.value
        // The download is stored by the cancelled render's task, after it left the queue: waited for (a hang guard).
        let pipeline = server.endpoints.pipeline, source = try ImageSource(origin.url("/queued.jpg"))
        #expect(await Self.eventually(within: 600) { (try? pipeline.info(for: source)) != nil })
        // Through the pipeline, with no deadline: a download and render within 3 s was a speed (over 1 s under
        // ThreadSanitizer on a busy machine), not what this test is about.
        let again = try await server.endpoints.pipeline.thumbnail(for: ImageSource(origin.url("/queued.jpg")), size: 64)
        #expect(again.servedFrom == .disk && again.rendered, "\(again.servedFrom): rendered now, from the kept download")
        #expect(origin.count("/queued.jpg") == 1, "the first download was stored though its render never ran")
        await server.stop()
        await origin.stop()
    }

    /// One worker busy: a render queued behind it whose request is cancelled leaves the queue at once (its place
    /// is free for another), never runs, and never held decode memory.
    @Test func aCancelledQueuedRenderNeverRuns() async throws {
        let limiter = RenderLimiter(workers: 1, queue: 1)
        let budget = DecodeBudget(capacity: 100)
        let release = DispatchSemaphore(value: 0)
        let running = Task { try await limiter.run(reserving: 30, of: budget) { release.wait(); return 0 } }
        #expect(await Self.eventually(within: 600) { limiter.load.running == 1 })
        let ran = Locked(0), left = Locked(false)
        let queued = Task {
            defer { left.withLock { $0 = true } }
            return try await limiter.run(reserving: 50, of: budget) { ran.withLock { $0 += 1 }; return 1 }
        }
        #expect(await Self.eventually(within: 600) { limiter.load.queued == 1 })
        #expect(budget.inUse == 30, "a queued render holds no decode memory")
        queued.cancel()
        // Left at once, while the worker is still busy (otherwise the test frees the worker rather than hang).
        let leftAtOnce = await Self.eventually(within: 600) { left.withLock { $0 } }
        #expect(leftAtOnce, "the cancelled render left the queue while the worker was still busy")
        if !leftAtOnce { release.signal() }
        await #expect {
            try await queued.value
        } throws: { error in
            guard case PipelineError.cancelled = error else { return false }
            return true
        }
        guard leftAtOnce else { return }
        #expect(limiter.load.queued == 0 && limiter.load.running == 1, "its queue place was freed at once")
        // The freed place takes another render (the queue holds one): admitted, not refused.
        let next = Task { try await limiter.run(reserving: 50, of: budget) { 2 } }
        #expect(await Self.eventually(within: 600) { limiter.load.queued == 1 })
        release.signal()
        #expect(try await running.value == 0)
        #expect(try await next.value == 2)
        #expect(ran.withLock { $0 } == 0, "the cancelled render never ran")
        #expect(limiter.load.running == 0 && limiter.load.queued == 0 && budget.inUse == 0)
        await limiter.shutdown()
    }
}
