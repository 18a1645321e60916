import Foundation

/// The threads that `background` calls (`DiskLruBackground`) do their blocking file I/O on: a fixed pool of its
/// own, so a caller on Swift's cooperative pool (a few threads, one per core) never blocks one of them on the
/// disk, and a burst of calls queues here rather than spawning threads as a global dispatch queue would.
public final class DiskLruIOPool: @unchecked Sendable {
    /// The process's pool: 4 threads (a disk serves a few requests at once; more only queue in the kernel).
    public static let shared = DiskLruIOPool(threads: 4)
    /// Each thread's name, so a profile or a test sees where the I/O ran.
    public static let threadName = "DiskLru I/O"

    public let threadCount: Int
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var next = 0
    private var started = false
    /// The pool's threads, as `pthread_self()` names them (Foundation's `Thread.name` is not reliably visible
    /// from the thread itself on Linux).
    private var threads = Set<pthread_t>()

    private init(threads: Int) {
        threadCount = max(1, threads)
    }

    /// Runs `work` on one of the pool's threads and resumes the caller with its result. Not cancellable: file
    /// I/O, once queued, runs to its end (as a blocking call would).
    func run<T: Sendable>(_ work: @escaping @Sendable () throws(DiskLruError) -> T) async throws(DiskLruError) -> T {
        let result: Result<T, DiskLruError> = await withCheckedContinuation { continuation in
            submit { continuation.resume(returning: Result { () throws(DiskLruError) -> T in try work() }) }
        }
        return try result.get()
    }

    /// Whether the calling thread is one of the pool's (where `background` calls do their I/O).
    public var ownsCurrentThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        return threads.contains(pthread_self())
    }

    private func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        if !started {
            started = true
            for index in 0..<threadCount {
                let thread = Thread { [unowned self] in
                    self.condition.lock()
                    self.threads.insert(pthread_self())
                    self.condition.unlock()
                    self.serve()
                }
                thread.name = "\(Self.threadName) \(index)"
                thread.start()
            }
        }
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// A thread's loop: the pool lives as long as the process (`shared` is its only instance).
    private func serve() {
        while true {
            condition.lock()
            while next == jobs.count { condition.wait() }
            let job = jobs[next]
            next += 1
            if next == jobs.count || next > 1024 {
                // Drop the jobs taken so far, cheaply: all of them when the queue is empty, else in batches.
                jobs.removeFirst(next)
                next = 0
            }
            condition.unlock()
            job()
        }
    }
}
