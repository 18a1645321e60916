import Foundation
import HTTPTypes
import Hummingbird
import ThumbcacheKit

/// RFC 9110 §13.1: whether a GET or HEAD's validators still match the thumbnail, so a 304 answers it.
/// `If-None-Match` wins over `If-Modified-Since` when both are sent.
struct ConditionalRequest {
    var ifNoneMatch: String?
    var ifModifiedSince: Date?

    init(_ headers: HTTPFields) {
        ifNoneMatch = headers[.ifNoneMatch]
        // No HTTP-date is longer than 64 bytes (the longest, RFC 850's, is 33): a longer value is not one and
        // is ignored, as an invalid date is (§13.1.3), without parsing it.
        ifModifiedSince = headers[.ifModifiedSince].flatMap { $0.utf8.count <= 64 ? HTTPDate.parse($0) : nil }
    }

    func isNotModified(etag: String, lastModified: Date?) -> Bool {
        if let ifNoneMatch {
            // Weak comparison (§13.1.2): W/ prefixes are ignored on both sides.
            // Within `HeaderList`'s bounds: a tag listed beyond them is not seen, and the answer is a full 200,
            // which is always correct (only less economical).
            let opaque = Self.opaque(etag[...])
            return HeaderList.scan(ifNoneMatch) { candidate in candidate != "*" && Self.opaque(candidate) != opaque } == .stopped
        }
        if let ifModifiedSince, let lastModified {
            return lastModified.timeIntervalSince1970.rounded(.down) <= ifModifiedSince.timeIntervalSince1970
        }
        return false
    }

    private static func opaque(_ tag: Substring) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
    }
}
