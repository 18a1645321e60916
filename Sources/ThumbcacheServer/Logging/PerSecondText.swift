import Foundation
import ThumbcacheKit

/// A text that changes once a second (an HTTP `Date`, a log line's time), made once a second instead of on
/// every use: formatting dates was a visible part of a memory hit's cost.
final class PerSecondText: Sendable {
    private let make: @Sendable (Date) -> String
    private let latest = Locked<(second: Int, text: String)>((Int.min, ""))

    init(_ make: @escaping @Sendable (Date) -> String) {
        self.make = make
    }

    var text: String { current.text }

    /// The text of this second, with the second it is of (whole seconds since 1970).
    var current: (second: Int, text: String) {
        let second = Int(time(nil))  // whole seconds from the clock: no conversion from a Double
        return latest.withLock { latest in
            if latest.second != second { latest = (second, make(Date(timeIntervalSince1970: TimeInterval(second)))) }
            return latest
        }
    }
}
