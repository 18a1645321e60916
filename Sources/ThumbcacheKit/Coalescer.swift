import Foundation

/// Runs one piece of work per key at a time and hands its result to everyone who asked meanwhile:
/// 50 concurrent requests for one URL make one download. A waiter that is cancelled stops waiting
/// at once; the work itself goes on for the others (and to fill the cache).
public actor Coalescer<Key: Hashable & Sendable, Value: Sendable> {
    private struct Flight {
        var waiters: [UInt64: CheckedContinuation<Value, any Error>] = [:]
    }

    private var flights: [Key: Flight] = [:]
    private var nextWaiter: UInt64 = 0
    /// How many times work actually started (for tests and stats).
    public private(set) var started = 0

    public init() {}

    public func value(for key: Key, work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        nextWaiter += 1
        let id = nextWaiter
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                if flights[key] != nil {
                    flights[key]!.waiters[id] = continuation
                    return
                }
                flights[key] = Flight(waiters: [id: continuation])
                started += 1
                // Unstructured on purpose: no single waiter owns the work, so no waiter's cancellation ends it.
                Task {
                    let result: Result<Value, any Error>
                    do { result = .success(try await work()) } catch { result = .failure(error) }
                    self.finish(key, result)
                }
            }
        } onCancel: {
            Task { await self.giveUp(key, id) }
        }
    }

    private func finish(_ key: Key, _ result: Result<Value, any Error>) {
        guard let flight = flights.removeValue(forKey: key) else { return }
        for continuation in flight.waiters.values { continuation.resume(with: result) }
    }

    private func giveUp(_ key: Key, _ id: UInt64) {
        flights[key]?.waiters.removeValue(forKey: id)?.resume(throwing: CancellationError())
    }
}
