import Foundation

/// Bounds the memory that decodes in one process hold at once: each render reserves its estimate
/// (`Thumbnailer.workingMemory`) once it has its render slot (`RenderGate`), before decoding, and returns it
/// after, so `warm --concurrency 8` or a server answering many requests stays within `capacity` of decode
/// memory, whatever arrives, and renders queued for a worker hold none. An asynchronous
/// semaphore counting bytes: a reservation that does not fit waits (without a thread) until enough is
/// returned. Waiters are served in order, so a large decode is not starved by a stream of small ones.
public final class DecodeBudget: Sendable {
    public static let defaultCapacity = 512 << 20

    /// Shared by every pipeline of the process that is not given its own.
    public static let shared = DecodeBudget(capacity: defaultCapacity)

    public let capacity: Int

    private struct Waiter {
        let id: UInt64
        let bytes: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var inUse = 0
        var peak = 0
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0

        /// Resumes waiters from the front while they fit; returns their continuations to resume unlocked.
        mutating func admit(capacity: Int) -> [CheckedContinuation<Void, any Error>] {
            var admitted: [CheckedContinuation<Void, any Error>] = []
            while let first = waiters.first, inUse + first.bytes <= capacity {
                waiters.removeFirst()
                take(first.bytes)
                admitted.append(first.continuation)
            }
            return admitted
        }

        mutating func take(_ bytes: Int) {
            inUse += bytes
            peak = max(peak, inUse)
        }
    }

    private let state = Locked(State())

    public init(capacity: Int) {
        precondition(capacity > 0, "a decode budget needs a positive capacity")
        self.capacity = capacity
    }

    /// Bytes reserved now.
    package var inUse: Int { state.withLock { $0.inUse } }
    /// The most bytes ever reserved at once.
    package var peak: Int { state.withLock { $0.peak } }
    /// Reservations waiting for bytes to be returned.
    package var waiting: Int { state.withLock { $0.waiters.count } }

    /// Reserves `bytes` (at most `capacity`: a decode larger than the whole budget runs alone), waiting until
    /// they fit. Returns the bytes reserved, to hand to `release`. Throws `CancellationError` if the task is
    /// cancelled while waiting; nothing is then reserved.
    package func reserve(_ bytes: Int) async throws -> Int {
        let bytes = min(max(bytes, 0), capacity)
        let id: UInt64? = state.withLock { state in
            if state.waiters.isEmpty && state.inUse + bytes <= capacity {
                state.take(bytes)
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return bytes }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let admitted: [CheckedContinuation<Void, any Error>]? = state.withLock { state in
                    if Task.isCancelled { return nil }
                    state.waiters.append(Waiter(id: id, bytes: bytes, continuation: continuation))
                    return state.admit(capacity: capacity)  // bytes may have been returned meanwhile
                }
                guard let admitted else { return continuation.resume(throwing: CancellationError()) }
                for waiter in admitted { waiter.resume() }
            }
        } onCancel: {
            let (cancelled, admitted) = state.withLock { state in
                let index = state.waiters.firstIndex { $0.id == id }
                let cancelled = index.map { state.waiters.remove(at: $0).continuation }
                // A large waiter leaving the front may let the ones behind it in.
                return (cancelled, state.admit(capacity: capacity))
            }
            cancelled?.resume(throwing: CancellationError())
            for waiter in admitted { waiter.resume() }
        }
        return bytes
    }

    /// `reserve` for a render about to start (inside its render slot): cancelled while waiting is
    /// `PipelineError.cancelled`.
    package func reserveForRender(_ bytes: Int) async throws(PipelineError) -> Int {
        do {
            return try await reserve(bytes)
        } catch {
            throw .cancelled("its render was waiting for decode memory")
        }
    }

    /// Returns bytes that `reserve` handed out.
    package func release(_ bytes: Int) {
        let admitted = state.withLock { state in
            state.inUse -= bytes
            return state.admit(capacity: capacity)
        }
        for waiter in admitted { waiter.resume() }
    }

    /// Runs `body` holding a reservation of `bytes`.
    package func withReservation<Result>(_ bytes: Int, _ body: () async throws -> Result) async throws -> Result {
        let reserved = try await reserve(bytes)
        defer { release(reserved) }
        return try await body()
    }
}
