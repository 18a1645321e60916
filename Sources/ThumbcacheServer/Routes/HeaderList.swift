/// The elements of a comma-separated header list (RFC 9110 §5.6.1), read in one pass with a bound on the work:
/// a client chooses how long its headers are (up to the decoder's 80 KiB), and the lists are read on the event
/// loop for every memory hit: without a bound a long `Accept` stalled the event loop on every hit
/// (docs/benchmarks.md, "Header lists").
///
/// At most `maximumElements` elements and the first `maximumBytes` bytes are examined; an element cut by the
/// byte bound is not. What lies beyond is ignored, and each caller says what that means for it (`Accept`: the
/// default format; `If-None-Match`: no match, a full answer; `Connection`: left to the router). Real lists are
/// far inside both bounds (a browser's `Accept` has about 8 elements and 150 bytes).
enum HeaderList {
    static let maximumElements = 64
    static let maximumBytes = 4096

    enum Scan: Equatable {
        /// Every element was examined.
        case complete
        /// The visitor stopped early.
        case stopped
        /// The list went past a bound: the rest was not examined.
        case truncated
    }

    /// Calls `visit` with each non-empty element, without the spaces and tabs around it, until it returns false.
    /// Commas inside a quoted string do not split.
    @discardableResult
    static func scan(_ value: String, _ visit: (Substring) -> Bool) -> Scan {
        let utf8 = value.utf8
        var index = utf8.startIndex, start = index
        var examined = 0, bytes = 0
        var quoted = false, escaped = false
        /// nil: go on.
        func element(_ end: String.Index) -> Scan? {
            let element = trimmed(value[start..<end])
            guard !element.isEmpty else { return nil }
            guard examined < maximumElements else { return .truncated }
            examined += 1
            return visit(element) ? nil : .stopped
        }
        while index != utf8.endIndex {
            // The element in progress is cut by the bound: it is not examined.
            guard bytes < maximumBytes else { return .truncated }
            let byte = utf8[index]
            if quoted {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { quoted = false }
            } else if byte == UInt8(ascii: "\"") {
                quoted = true
            } else if byte == UInt8(ascii: ",") {
                if let end = element(index) { return end }
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
            bytes += 1
        }
        return element(index) ?? .complete
    }

    /// Whether the list names `token` (case-insensitive); nil when it went past a bound before naming it, so the
    /// caller decides what an unread rest means.
    static func containsToken(_ value: String, _ token: String) -> Bool? {
        var found = false
        let scan = scan(value) { element in
            found = element.utf8.count == token.utf8.count && element.lowercased() == token
            return !found
        }
        return found ? true : scan == .truncated ? nil : false
    }

    /// `text` without leading and trailing spaces and tabs (HTTP's optional whitespace).
    static func trimmed(_ text: Substring) -> Substring {
        let utf8 = text.utf8
        var lower = utf8.startIndex, upper = utf8.endIndex
        while lower < upper, utf8[lower] == 32 || utf8[lower] == 9 { lower = utf8.index(after: lower) }
        while upper > lower, utf8[utf8.index(before: upper)] == 32 || utf8[utf8.index(before: upper)] == 9 { upper = utf8.index(before: upper) }
        return text[lower..<upper]
    }
}
