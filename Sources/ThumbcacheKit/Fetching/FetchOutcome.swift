import Foundation

/// What asking the origin produced: a new body, or "not modified" with refreshed headers. `setsCookie`: the
/// answer had `Set-Cookie` (never kept itself, but a shared cache does not store such an answer).
enum FetchOutcome: Sendable {
    case body(FetchedOriginal, headers: [String: String], requestTime: Date, responseTime: Date, setsCookie: Bool = false)
    case notModified(headers: [String: String], requestTime: Date, responseTime: Date, setsCookie: Bool = false)
}

/// Picks the caching headers out of a response (names lower-cased), as stored in `CacheMetadata`.
func cachingHeaders(_ all: [(String, String)]) -> [String: String] {
    var kept: [String: String] = [:]
    for (name, value) in all {
        let lower = name.lowercased()
        guard CacheMetadata.keptHeaders.contains(lower) else { continue }
        kept[lower] = kept[lower].map { "\($0), \(value)" } ?? value
    }
    return kept
}
