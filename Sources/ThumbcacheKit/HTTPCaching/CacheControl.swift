/// The `Cache-Control` directives a cache acts on (RFC 9111 §5.2).
package struct CacheControl: Sendable, Equatable {
    package var maxAge: Int?
    /// `s-maxage`: the lifetime in a shared cache, in place of `max-age` (§5.2.2.10).
    package var sharedMaxAge: Int?
    package var noStore = false
    package var noCache = false
    package var mustRevalidate = false
    package var isPrivate = false
    package var isPublic = false
    package var immutable = false
    /// RFC 5861 §4: seconds past its freshness that the origin allows this response to be served when
    /// revalidating it fails (a network error or a 500, 502, 503 or 504).
    package var staleIfError: Int?

    package init(maxAge: Int? = nil, noStore: Bool = false, noCache: Bool = false, mustRevalidate: Bool = false) {
        self.maxAge = maxAge
        self.noStore = noStore
        self.noCache = noCache
        self.mustRevalidate = mustRevalidate
    }

    private static func isOWS(_ character: Character) -> Bool { character == " " || character == "\t" }

    private static func trimmed(_ text: Substring, where trim: (Character) -> Bool) -> Substring {
        var text = text.drop(while: trim)
        while let last = text.last, trim(last) { text = text.dropLast() }
        return text
    }

    /// Parses one or more header values; unknown directives are ignored, as RFC 9111 requires.
    package init(parsing values: [String]) {
        for value in values {
            for part in value.split(separator: ",") {
                let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                // Optional whitespace is space and tab (RFC 9110 §5.6.3); trimmed natively, as Foundation's
                // trimmingCharacters went through NSString (a thirtieth of a fresh warm run).
                let name = Self.trimmed(pieces[0], where: Self.isOWS).lowercased()
                let argument = pieces.count > 1 ? String(Self.trimmed(Self.trimmed(pieces[1], where: Self.isOWS), where: { $0 == "\"" })) : nil
                switch name {
                case "max-age":
                    // A malformed max-age makes the response stale (RFC 9111 §4.2.1), not fresh forever; a huge
                    // one counts as 2^31 s (§1.2.2).
                    maxAge = argument.flatMap(HTTPInteger.deltaSeconds) ?? 0
                case "s-maxage": sharedMaxAge = argument.flatMap(HTTPInteger.deltaSeconds) ?? 0
                case "no-store": noStore = true
                // `no-cache="field"` only restricts fields; we treat it like plain no-cache, the safe reading.
                case "no-cache": noCache = true
                case "must-revalidate", "proxy-revalidate": mustRevalidate = true
                case "private": isPrivate = true
                case "public": isPublic = true
                case "immutable": immutable = true
                case "stale-if-error": staleIfError = argument.flatMap(HTTPInteger.deltaSeconds)
                default: break
                }
            }
        }
    }
}

import Foundation
