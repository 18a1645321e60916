import Foundation
import ThumbcacheKit

/// A text that changes once a second (an HTTP `Date`, a log line's time), made once a second instead of on
/// every use: formatting dates was a visible part of a memory hit's cost.
final class PerSecondText: Sendable {
    private let make: @Sendable (Date) -> String
    private let current = Locked<(second: Int, text: String)>((Int.min, ""))

    init(_ make: @escaping @Sendable (Date) -> String) {
        self.make = make
    }

    var text: String {
        let now = Date()
        let second = Int(now.timeIntervalSince1970.rounded(.down))
        return current.withLock { current in
            if current.second != second { current = (second, make(now)) }
            return current.text
        }
    }
}
