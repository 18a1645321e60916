import Foundation

/// An http(s) URL as thumbcache fetches it, checked and normalised once: scheme and host lower-cased, the
/// default port and the fragment dropped, the port within 1–65535, and any `user:password` taken out (they are
/// sent as Basic auth to this origin only, and never stored, printed or hashed into a key).
/// Sources and every redirect target go through here, so each hop is checked the same way.
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

    var description: String { url }

    init(_ text: String) throws(Invalid) {
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw Invalid(reason: "only http and https URLs are fetched")
        }
        guard var components = URLComponents(string: text), let rawHost = components.host, !rawHost.isEmpty else {
            throw Invalid(reason: "not a valid http(s) URL")
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
        if components.path.isEmpty { components.path = "/" }
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

    /// The target of a redirect from `self`: `location` resolved against this URL.
    func resolving(_ location: String) throws(Invalid) -> HTTPLocation {
        guard let base = URL(string: url), let target = URL(string: location, relativeTo: base)?.absoluteURL else {
            throw Invalid(reason: "not a valid URL")
        }
        return try HTTPLocation(target.absoluteString)
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
