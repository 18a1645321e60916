import NIOPosix
import ThumbcacheKit

/// Bounds renders: at most `workers` run at once, on their own threads (a decode never blocks the
/// threads that serve requests), and at most `queue` wait; beyond that a render is refused at once
/// (`PipelineError.overloaded`, a 503). The pipeline calls it once per coalesced render, so requests
/// waiting on another request's render never count.
public final class RenderLimiter: RenderGate {
    public let workers: Int
    public let queue: Int
    private let pool: NIOThreadPool
    private let admitted = Locked(0)
    private let started = Locked(0)

    public init(workers: Int, queue: Int) {
        self.workers = max(1, workers)
        self.queue = max(0, queue)
        pool = NIOThreadPool(numberOfThreads: self.workers)
        pool.start()
    }

    /// Renders running now, and renders waiting for a worker.
    public var load: (running: Int, queued: Int) {
        let count = admitted.withLock { $0 }
        return (min(count, workers), max(0, count - workers))
    }

    /// Renders admitted since the start (each coalesced render once).
    public var rendersStarted: Int { started.withLock { $0 } }

    public func run<T: Sendable>(_ body: @escaping @Sendable () throws(PipelineError) -> T) async throws(PipelineError) -> T {
        let admit = admitted.withLock { count in
            guard count < workers + queue else { return false }
            count += 1
            return true
        }
        guard admit else {
            throw .overloaded("all \(workers) render workers are busy and \(queue) renders are waiting")
        }
        started.withLock { $0 += 1 }
        defer { admitted.withLock { $0 -= 1 } }
        do {
            return try await pool.runIfActive { () throws(PipelineError) -> T in try body() }
        } catch let error as PipelineError {
            throw error
        } catch {
            throw .overloaded("the server is stopping")
        }
    }

    public func shutdown() async {
        try? await pool.shutdownGracefully()
    }
}
