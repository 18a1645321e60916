import Foundation

/// Runs one piece of work per key at a time and hands its result to everyone who asked meanwhile:
/// 50 concurrent requests for one URL make one download. A waiter that is cancelled stops waiting at once.
/// While another waiter remains, the work goes on for it (and fills the cache); when the last waiter gives up,
/// the work is cancelled and forgotten, so the next request for the key starts afresh. The work must observe
/// cancellation for that to free anything (a download closes its connection, a queued render leaves its queue).
package actor Coalescer<Key: Hashable & Sendable, Value: Sendable> {
    private struct Flight {
        /// Tells this flight from a later one of the same key: a cancelled flight that finishes afterwards
        /// must not answer (or remove) the flight that replaced it.
        let id: UInt64
        var waiters: [UInt64: CheckedContinuation<Value, any Error>]
        let task: Task<Void, Never>
    }

    private var flights: [Key: Flight] = [:]
    private var nextID: UInt64 = 0
    /// How many times work actually started (for tests and stats).
    package private(set) var started = 0
    /// How many times work ended here, whether it answered its flight or nobody (a flight given up): a test waits
    /// on this, not on a sleep, to know a cancelled flight's late end has been handled.
    package private(set) var ended = 0

    package init() {}

    /// Callers waiting on the key's work now (for tests).
    func waiters(for key: Key) -> Int { flights[key]?.waiters.count ?? 0 }

    package func value(for key: Key, work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let waiter = newID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                if flights[key] != nil {
                    flights[key]?.waiters[waiter] = continuation
                    return
                }
                let id = newID()
                started += 1
                // Unstructured on purpose: no single waiter owns the work, so no one waiter's cancellation ends it
                // (`giveUp` cancels it when the last one leaves). It cannot finish before the flight is recorded:
                // `finish` runs on this actor, after this turn.
                let task = Task {
                    let result: Result<Value, any Error>
                    do { result = .success(try await work()) } catch { result = .failure(error) }
                    self.finish(key, id, result)
                }
                flights[key] = Flight(id: id, waiters: [waiter: continuation], task: task)
            }
        } onCancel: {
            Task { await self.giveUp(key, waiter) }
        }
    }

    private func newID() -> UInt64 {
        nextID += 1
        return nextID
    }

    private func finish(_ key: Key, _ id: UInt64, _ result: Result<Value, any Error>) {
        ended += 1
        guard flights[key]?.id == id, let flight = flights.removeValue(forKey: key) else { return }
        for continuation in flight.waiters.values { continuation.resume(with: result) }
    }

    private func giveUp(_ key: Key, _ waiter: UInt64) {
        guard var flight = flights[key], let continuation = flight.waiters.removeValue(forKey: waiter) else { return }
        if flight.waiters.isEmpty {
            flights[key] = nil
            flight.task.cancel()
        } else {
            flights[key] = flight
        }
        continuation.resume(throwing: CancellationError())
    }
}
