import Foundation

/// A value behind a lock. A pthread mutex (through NSLock) rather than `Synchronization.Mutex`: on Linux the
/// latter's contended path runs inside the uninstrumented standard library, so ThreadSanitizer cannot see
/// it synchronise and reports races that are not there. `swift test --sanitize=thread` must stay clean.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
