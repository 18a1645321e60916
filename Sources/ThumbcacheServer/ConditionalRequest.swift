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
        ifModifiedSince = headers[.ifModifiedSince].flatMap(HTTPDate.parse)
    }

    func isNotModified(etag: String, lastModified: Date?) -> Bool {
        if let ifNoneMatch {
            // Weak comparison (§13.1.2): W/ prefixes are ignored on both sides.
            let opaque = Self.opaque(etag)
            return ifNoneMatch.split(separator: ",").contains { candidate in
                let trimmed = candidate.trimmingCharacters(in: .whitespaces)
                return trimmed == "*" || Self.opaque(trimmed) == opaque
            }
        }
        if let ifModifiedSince, let lastModified {
            return lastModified.timeIntervalSince1970.rounded(.down) <= ifModifiedSince.timeIntervalSince1970
        }
        return false
    }

    private static func opaque(_ tag: String) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : tag[...]
    }
}
