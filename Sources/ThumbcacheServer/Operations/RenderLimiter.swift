import NIOPosix
import ThumbcacheKit

/// Bounds renders: at most `workers` run at once, on their own threads (a decode never blocks the
/// threads that serve requests), and at most `queue` wait, in order; beyond that a render is refused at once
/// (`PipelineError.overloaded`, a 503). Downloads ask first (`admit`): each is promised a place for the render
/// that follows it, and refused before any byte is fetched when running, waiting and promised renders already
/// fill `workers + queue`. The pipeline calls it once per coalesced download and render, so requests waiting on
/// another request's work never count. A waiting render whose task is cancelled (every request that wanted it
/// timed out or left) leaves the queue at once and never runs.
package final class RenderLimiter: RenderGate {
    package let workers: Int
    package let queue: Int
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
        /// Places promised to downloads in flight (`admit`), not yet used by their render nor given back.
        var promised = 0

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

    package init(workers: Int, queue: Int) {
        self.workers = max(1, workers)
        self.queue = max(0, queue)
        pool = NIOThreadPool(numberOfThreads: self.workers)
        pool.start()
    }

    /// Renders running now, renders waiting for a worker, and places promised to downloads in flight.
    package var load: (running: Int, queued: Int, promised: Int) {
        state.withLock { ($0.running, $0.waiters.count, $0.promised) }
    }

    package func admit() throws(PipelineError) -> RenderAdmission? {
        let admitted = state.withLock { state in
            guard state.running + state.waiters.count + state.promised < workers + queue else { return false }
            state.promised += 1
            return true
        }
        guard admitted else {
            throw .overloaded("all \(workers) render workers are busy and \(queue) renders are waiting or downloading")
        }
        return RenderAdmission { [state] in state.withLock { $0.promised -= 1 } }
    }

    /// Renders admitted since the start (each coalesced render once).
    package var rendersStarted: Int { state.withLock { $0.started } }

    package func run<T: Sendable>(reserving bytes: Int, of budget: DecodeBudget?, admission: RenderAdmission?,
                                 _ body: @escaping @Sendable () throws(PipelineError) -> T) async throws(PipelineError) -> T {
        try await acquire(admission)
        defer { release() }
        let reserved = try await budget?.reserveForRender(bytes) ?? 0
        defer { budget?.release(reserved) }
        // Handed a slot (or memory) just as every request for it left: it must not start.
        if Task.isCancelled { throw .cancelled("its render was about to start") }
        // Once started, a cancelled render stops at its next check (`RenderCancellation`, which the pipeline sets
        // from its task's cancellation), and this waits for it: the slot and memory are held until `body` returns.
        // The pool has a thread per slot, so `body` does not wait in its queue.
        return try await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, PipelineError>, Never>) in
            pool.submit { state in
                switch state {
                case .active: continuation.resume(returning: Result { () throws(PipelineError) -> T in try body() })
                case .cancelled: continuation.resume(returning: .failure(.overloaded("the server is stopping")))
                }
            }
        }.get()
    }

    private struct Refused: Error {}

    /// Takes a worker slot, waiting in the queue for one if need be; refused at once when the queue (with the
    /// places promised to downloads) is full, unless `admission` brings a promised place. Admission and queueing
    /// happen under one lock, so concurrent arrivals cannot overfill the queue.
    private func acquire(_ admission: RenderAdmission?) async throws(PipelineError) {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let admitted = state.withLock { state -> Result<Void, any Error>? in
                        if Task.isCancelled {
                            if admission?.take() == true { state.promised -= 1 }
                            return .failure(CancellationError())
                        }
                        let promised = admission?.take() == true
                        if promised { state.promised -= 1 }
                        if state.running < workers && state.waiters.isEmpty {
                            state.running += 1
                            state.started += 1
                            return .success(())
                        }
                        guard promised || state.waiters.count + state.promised < queue else { return .failure(Refused()) }
                        state.started += 1
                        state.waiters.append(Waiter(id: id, continuation: continuation))
                        return nil
                    }
                    if let admitted { continuation.resume(with: admitted) }
                }
            } onCancel: {
                // Still waiting: leave the queue, freeing its place. Already handed a slot: `run` checks for itself.
                let cancelled = state.withLock { state in
                    state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0).continuation }
                }
                cancelled?.resume(throwing: CancellationError())
            }
        } catch is Refused {
            throw .overloaded("all \(workers) render workers are busy and \(queue) renders are waiting")
        } catch {
            throw .cancelled("its render was waiting for a worker")
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

    package func shutdown() async {
        try? await pool.shutdownGracefully()
    }
}
