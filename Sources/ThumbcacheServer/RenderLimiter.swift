import NIOPosix
import ThumbcacheKit

/// Bounds renders: at most `workers` run at once, on their own threads (a decode never blocks the
/// threads that serve requests), and at most `queue` wait, in order; beyond that a render is refused at once
/// (`PipelineError.overloaded`, a 503). The pipeline calls it once per coalesced render, so requests
/// waiting on another request's render never count. A waiting render whose task is cancelled (every request
/// that wanted it timed out or left) leaves the queue at once and never runs.
public final class RenderLimiter: RenderGate {
    public let workers: Int
    public let queue: Int
    private let pool: NIOThreadPool

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        /// Renders holding a worker slot: reserving decode memory or decoding.
        var running = 0
        /// Renders waiting for a slot, first come first served.
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        var started = 0

        /// Hands free slots to waiters from the front; returns their continuations to resume unlocked.
        mutating func admit(workers: Int) -> [CheckedContinuation<Void, any Error>] {
            var admitted: [CheckedContinuation<Void, any Error>] = []
            while running < workers, !waiters.isEmpty {
                running += 1
                admitted.append(waiters.removeFirst().continuation)
            }
            return admitted
        }
    }

    private let state = Locked(State())

    public init(workers: Int, queue: Int) {
        self.workers = max(1, workers)
        self.queue = max(0, queue)
        pool = NIOThreadPool(numberOfThreads: self.workers)
        pool.start()
    }

    /// Renders running now, and renders waiting for a worker.
    public var load: (running: Int, queued: Int) {
        state.withLock { ($0.running, $0.waiters.count) }
    }

    /// Renders admitted since the start (each coalesced render once).
    public var rendersStarted: Int { state.withLock { $0.started } }

    public func run<T: Sendable>(reserving bytes: Int, of budget: DecodeBudget?,
                                 _ body: @escaping @Sendable () throws(PipelineError) -> T) async throws(PipelineError) -> T {
        try await acquire()
        defer { release() }
        let reserved = try await budget?.reserveForRender(bytes) ?? 0
        defer { budget?.release(reserved) }
        // Handed a slot (or memory) just as every request for it left: it must not start.
        if Task.isCancelled { throw .cancelled("its render was about to start") }
        // Once started, the render runs to the end even if cancelled: the C decoders cannot be interrupted (and the
        // thumbnail still fills the cache). The pool has a thread per slot, so `body` does not wait in its queue.
        return try await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, PipelineError>, Never>) in
            pool.submit { state in
                switch state {
                case .active: continuation.resume(returning: Result { () throws(PipelineError) -> T in try body() })
                case .cancelled: continuation.resume(returning: .failure(.overloaded("the server is stopping")))
                }
            }
        }.get()
    }

    /// Takes a worker slot, waiting in the queue for one if need be; refused at once when the queue is full.
    private func acquire() async throws(PipelineError) {
        enum Admission { case run, wait(UInt64), refuse }
        let admission = state.withLock { state -> Admission in
            if state.running < workers && state.waiters.isEmpty {
                state.running += 1
                state.started += 1
                return .run
            }
            guard state.waiters.count < queue else { return .refuse }
            state.started += 1
            state.nextID += 1
            return .wait(state.nextID)
        }
        switch admission {
        case .run:
            return
        case .refuse:
            throw .overloaded("all \(workers) render workers are busy and \(queue) renders are waiting")
        case .wait(let id):
            do { try await wait(id) } catch { throw .cancelled("its render was waiting for a worker") }
        }
    }

    private func wait(_ id: UInt64) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let admitted = state.withLock { state -> [CheckedContinuation<Void, any Error>]? in
                    if Task.isCancelled { return nil }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return state.admit(workers: workers)  // a slot may have been freed meanwhile
                }
                guard let admitted else { return continuation.resume(throwing: CancellationError()) }
                for waiter in admitted { waiter.resume() }
            }
        } onCancel: {
            // Still waiting: leave the queue, freeing its place. Already handed a slot: `run` checks for itself.
            let cancelled = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0).continuation }
            }
            cancelled?.resume(throwing: CancellationError())
        }
    }

    /// Frees a slot, handing it to the first waiter if there is one.
    private func release() {
        let admitted = state.withLock { state in
            state.running -= 1
            return state.admit(workers: workers)
        }
        for waiter in admitted { waiter.resume() }
    }

    public func shutdown() async {
        try? await pool.shutdownGracefully()
    }
}
