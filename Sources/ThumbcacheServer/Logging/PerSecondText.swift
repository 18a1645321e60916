import Foundation
import ThumbcacheKit

/// A text that changes once a second (an HTTP `Date`, a log line's time), made once a second instead of on
/// every use: formatting dates was a visible part of a memory hit's cost.
final class PerSecondText: Sendable {
    private let make: @Sendable (Date) -> String
    private let current = Locked<(second: time_t, text: String)>((time_t.min, ""))

    init(_ make: @escaping @Sendable (Date) -> String) {
        self.make = make
    }

    var text: String {
        let second = time(nil)  // whole seconds from the clock: no conversion from a Double
        return current.withLock { current in
            if current.second != second { current = (second, make(Date(timeIntervalSince1970: TimeInterval(second)))) }
            return current.text
        }
    }
}
