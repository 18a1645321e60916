import Foundation

/// An http(s) URL as thumbcache fetches it, checked and normalised once: scheme and host lower-cased, the
/// default port and the fragment dropped, the port within 1–65535, the path normalised (RFC 3986 §6.2.2: escapes
/// of unreserved characters decoded, dot segments removed), and any `user:password` taken out (they are sent as
/// Basic auth to this origin only, and never stored, printed or hashed into a key).
/// Sources, prefixes and every redirect target go through here, so each hop is checked the same way, and the
/// URL requested is exactly the one checked: the origin never sees a `..` that the prefix check did not.
struct HTTPLocation: Sendable, Hashable, CustomStringConvertible {
    /// Why a text is not a usable http(s) URL.
    struct Invalid: Error {
        let reason: String
    }

    /// The normalised URL, without credentials: the identity of the cache entry and what is requested.
    let url: String
    let scheme: String
    /// The host as the HTTP client connects to it: lower-case, IPv6 without brackets.
    let host: String
    let port: Int
    /// Path and query, percent-encoded as in `url`.
    let pathAndQuery: String
    let credentials: Credentials?
    /// Whether the URL had a user-info part at all (`user:pw@`, `user@`, even an empty `@`).
    let hasUserInfo: Bool

    var description: String { url }

    init(_ text: String) throws(Invalid) {
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw Invalid(reason: "only http and https URLs are fetched")
        }
        // A `%` that starts no escape makes URLComponents escape every `%` of the URL: another URL than written.
        guard Self.escapesAreWellFormed(text) else {
            throw Invalid(reason: "a % that is not followed by two hex digits (write a literal % as %25)")
        }
        guard var components = URLComponents(string: text), let rawHost = components.host, !rawHost.isEmpty else {
            throw Invalid(reason: "not a valid http(s) URL")
        }
        // The HTTP client requests the decoded path, and one whose escapes are not UTF-8 text (`%FF`) decodes to
        // nothing: it would ask for `/` and the query, not the URL checked.
        guard components.percentEncodedPath.removingPercentEncoding != nil,
              components.percentEncodedQuery.map({ $0.removingPercentEncoding != nil }) ?? true else {
            throw Invalid(reason: "escapes in its path or query that are not UTF-8 text (such as %FF): it cannot be requested as written")
        }
        // Percent-escapes and IPv6 zone ids in a host name are legal but never needed for an image, and they
        // would make the host we check differ from the one the client connects to.
        guard !rawHost.contains("%"), components.percentEncodedHost?.contains("%") != true else {
            throw Invalid(reason: "a host with % escapes or an IPv6 zone is not supported")
        }
        let scheme = lower.hasPrefix("https://") ? "https" : "http"
        let defaultPort = scheme == "https" ? 443 : 80
        // URLComponents keeps a port too large for an Int in the string while `port` says nil: read the text.
        var port = defaultPort
        if let parsed = components.string, let range = components.rangeOfPort, !parsed[range].isEmpty {
            guard let value = HTTPInteger.parse(parsed[range], cap: 65_536), (1...65_535).contains(value) else {
                throw Invalid(reason: "port \(parsed[range].prefix(20)) is not in 1-65535")
            }
            port = value
        }
        hasUserInfo = components.percentEncodedUser != nil || components.percentEncodedPassword != nil
        if !(components.user ?? "").isEmpty || components.password != nil {
            credentials = Credentials(user: components.user ?? "", password: components.password ?? "")
        } else {
            credentials = nil
        }
        (components.user, components.password) = (nil, nil)
        components.scheme = scheme
        components.host = rawHost.lowercased()
        components.port = port == defaultPort ? nil : port
        components.fragment = nil
        components.percentEncodedPath = Self.normalizedPath(components.percentEncodedPath)
        guard let url = components.string, let parsed = URL(string: url), let connectHost = parsed.host, !connectHost.isEmpty else {
            throw Invalid(reason: "not a valid http(s) URL")
        }
        self.url = url
        self.scheme = scheme
        // What AsyncHTTPClient derives from the URL (Foundation's host, brackets trimmed): the name to resolve
        // and pin must be the one it would otherwise resolve itself.
        host = connectHost.hasPrefix("[") && connectHost.hasSuffix("]") ? String(connectHost.dropFirst().dropLast()) : connectHost
        self.port = port
        pathAndQuery = components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// A percent-encoded path as RFC 3986 §6.2.2 normalises it: escapes of unreserved characters decoded (so
    /// `%2e%2E` is `..`), other escapes in upper case, then dot segments removed (§5.2.4). Escaped slashes and
    /// backslashes stay escaped: they are not separators here (`SourcePolicy` refuses them under a prefix, as
    /// origins disagree on whether to decode them).
    static func normalizedPath(_ path: String) -> String {
        removingDotSegments(normalizingEscapes(path))
    }

    private static func escapesAreWellFormed(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        while let percent = bytes[index...].firstIndex(of: UInt8(ascii: "%")) {
            guard percent + 2 < bytes.count, HexDigit.value(bytes[percent + 1]) != nil, HexDigit.value(bytes[percent + 2]) != nil
            else { return false }
            index = percent + 3
        }
        return true
    }

    private static func normalizingEscapes(_ path: String) -> String {
        guard path.utf8.contains(UInt8(ascii: "%")) else { return path }
        var output: [UInt8] = []
        output.reserveCapacity(path.utf8.count)
        let bytes = Array(path.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = HexDigit.value(bytes[index + 1]), let low = HexDigit.value(bytes[index + 2]) {
                let value = high << 4 | low
                if isUnreserved(value) {
                    output.append(value)
                } else {
                    output += [UInt8(ascii: "%"), HexDigit.uppercase(high), HexDigit.uppercase(low)]
                }
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// RFC 3986 §5.2.4 on an absolute path, by segments: `.` goes, `..` takes the segment before it with it (never
    /// above the root), and a path ending in either keeps its trailing slash.
    private static func removingDotSegments(_ path: String) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard segments.contains(where: { $0 == "." || $0 == ".." }) else { return path.isEmpty ? "/" : path }
        var output: [Substring] = []
        for (offset, segment) in segments.enumerated() {
            let isLast = offset == segments.count - 1
            switch segment {
            case ".": if isLast { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            default: output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/")
    }

    /// ALPHA, DIGIT, `-`, `.`, `_`, `~` (RFC 3986 §2.3): escaping them changes nothing, so they are decoded.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }

    /// Scheme, host and port: where credentials may be sent.
    func sameOrigin(as other: HTTPLocation) -> Bool {
        scheme == other.scheme && host == other.host && port == other.port
    }

    /// `text` with the password of any `user:password@` replaced by `***`, for messages and reports.
    static func redacting(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://") else { return text }
        let authorityEnd = text[schemeEnd.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        let authority = text[schemeEnd.upperBound..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return text }
        let userInfo = authority[..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return text }
        return String(text[..<text.index(after: colon)]) + "***" + String(text[at...])
    }
}

/// A user name and password from a URL: sent as `Authorization: Basic` (as curl does), to the URL's own origin
/// only, and never written anywhere.
struct Credentials: Sendable, Hashable, CustomStringConvertible {
    let user: String
    let password: String

    var authorization: String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    var description: String { "\(user):***" }
}
