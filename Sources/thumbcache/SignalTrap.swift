import Dispatch
import Foundation
import ThumbcacheKit
#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGINT and SIGTERM into a callback (once), so a long command can stop cleanly: abort in-flight
/// work, close the cache, print what it did. A second signal exits at once.
final class SignalTrap {
    /// The first signal caught, shared with the dispatch handlers.
    private final class Caught: Sendable {
        let value = Locked<Int32?>(nil)
    }

    private let caught = Caught()
    private let sources: [any DispatchSourceSignal]

    init(_ signals: [Int32] = [SIGINT, SIGTERM], onSignal: @escaping @Sendable (Int32) -> Void) {
        let caught = self.caught
        sources = signals.map { number in
            _ = Glibc.signal(number, SIG_IGN)  // let the dispatch source, not the default action, handle it
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let first = caught.value.withLock { value in
                    defer { value = value ?? number }
                    return value == nil
                }
                if first { onSignal(number) } else { exit(128 + number) }
            }
            source.resume()
            return source
        }
    }

    deinit { sources.forEach { $0.cancel() } }

    /// The signal that arrived, if any.
    var signal: Int32? { caught.value.withLock { $0 } }
}
