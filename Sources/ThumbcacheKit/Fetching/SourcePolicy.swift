import Foundation

/// Which sources the pipeline may fetch: the defence against server-side request forgery for a server that
/// fetches URLs its clients name. Checked whenever the origin is contacted, on the source and on every redirect
/// hop: the scheme (http and https only; files only with `allowLoopback`), the URL prefixes, and the address
/// actually connected to, after DNS resolution (so neither a redirect nor DNS rebinding reaches a refused
/// address). A refused source makes no connection: `PipelineError.sourceRefused`.
///
/// The default allows everything (the CLI's behaviour); a public server sets `allowLoopback` and
/// `allowPrivate` to false.
public struct SourcePolicy: Sendable, Equatable {
    /// URL prefixes a source must start with (empty: any). Matched on the normalised URL, by scheme, host and
    /// port exactly and path by prefix: end a path prefix with `/` unless `/img` should also allow `/img2`.
    public var allowedPrefixes: [String]
    /// Loopback (127/8, ::1), the unspecified address (0/8, ::) and local files.
    public var allowLoopback: Bool
    /// Every other non-public address: private (10/8, 172.16/12, 192.168/16, fc00::/7), shared (100.64/10),
    /// link-local (169.254/16, fe80::/10), multicast, broadcast and reserved ranges.
    public var allowPrivate: Bool
    /// A directory whose files are allowed whatever `allowLoopback` says (imgproxy's local filesystem root, `serve
    /// --local-root`): absolute, without symbolic links in it (`FileFetcher` opens files beneath it following none).
    public var localRoot: String?

    public init(allowedPrefixes: [String] = [], allowLoopback: Bool = true, allowPrivate: Bool = true, localRoot: String? = nil) {
        self.allowedPrefixes = allowedPrefixes
        self.allowLoopback = allowLoopback
        self.allowPrivate = allowPrivate
        self.localRoot = localRoot
    }

    /// Any source, any address: thumbcache's CLI.
    public static let unrestricted = SourcePolicy()

    /// Whether addresses are checked at all (else the HTTP client resolves names itself, as it always did).
    var checksAddresses: Bool { !allowLoopback || !allowPrivate }

    /// Why `address` is refused ("a loopback address"), or nil when it is allowed.
    func refusal(of address: IPAddress) -> String? {
        switch address.kind {
        case .global: nil
        case .loopback, .unspecified: allowLoopback ? nil : address.kind.phrase
        default: allowPrivate ? nil : address.kind.phrase
        }
    }

    /// Why the http(s) URL `location` is refused by the prefixes, or nil. `location` is normalised (no dot
    /// segments), and it is what will be requested. What origins read differently is refused under a prefix:
    /// an escaped `/` or `\` (some decode it, and `..%2F` then climbs out), a dot segment with parameters
    /// (`..;/`, which Tomcat and Jetty strip to `..`) and a raw backslash.
    func refusal(of location: HTTPLocation) -> String? {
        guard !allowedPrefixes.isEmpty else { return nil }
        if let ambiguity = Self.ambiguity(inPath: location.pathAndQuery) {
            return "\(location) has \(ambiguity) in its path, which origins read differently: refused under an allowed source prefix"
        }
        let allowed = allowedPrefixes.contains { prefix in
            // An unparsable prefix allows nothing.
            guard let prefix = try? HTTPLocation(prefix) else { return false }
            return prefix.sameOrigin(as: location) && location.pathAndQuery.hasPrefix(prefix.pathAndQuery)
        }
        return allowed ? nil : "\(location) is not under an allowed source prefix"
    }

    /// What in a path some origin would read as another path than the normalised one, or nil.
    static func ambiguity(inPath pathAndQuery: String) -> String? {
        let path = pathAndQuery.prefix { $0 != "?" }
        let lower = path.lowercased()
        if lower.contains("%2f") { return "an escaped slash (%2F)" }
        if lower.contains("%5c") || path.contains("\\") { return "a backslash" }
        if lower.contains("%00") { return "a NUL (%00)" }
        for segment in lower.replacingOccurrences(of: "%3b", with: ";").split(separator: "/") where segment.contains(";") {
            let name = segment.prefix { $0 != ";" }
            if name == "." || name == ".." || name.isEmpty { return "a dot segment with parameters (\(segment.prefix(20)))" }
        }
        for segment in path.split(separator: "/") where isDotLike(segment) {
            return "a segment that an origin may read as a dot segment (\(segment.prefix(30)))"
        }
        return nil
    }

    /// A segment that is not `.` or `..` (those are gone after normalisation) but that an origin decoding or
    /// normalising differently could read as one: two dots and anything (`..%20`, `..%3F`, `...`), one dot and
    /// only spaces or delimiters, or dots written as other characters that Unicode folds to `.` (`．．`, `‥`).
    private static func isDotLike(_ segment: Substring) -> Bool {
        let decoded = String(segment).removingPercentEncoding ?? String(segment)
        let folded = decoded.precomposedStringWithCompatibilityMapping
        if folded.hasPrefix("..") { return true }
        guard folded.hasPrefix(".") else { return false }
        let rest = folded.dropFirst()
        if rest.isEmpty { return decoded != "." }
        return rest.allSatisfy { $0.isWhitespace || "?#;".contains($0) }
    }

    /// The path of `path` below `localRoot` ("a/b.jpg"), when it is under it; nil otherwise.
    func pathBelowLocalRoot(_ path: String) -> String? {
        guard let localRoot else { return nil }
        let root = localRoot.hasSuffix("/") ? localRoot : localRoot + "/"
        guard path.hasPrefix(root), path.count > root.count else { return nil }
        return String(path.dropFirst(root.count))
    }

    /// Why the local file `path` (normalised `file://` URL `normalized`) is refused, or nil.
    func refusal(ofFile normalized: String) -> String? {
        if pathBelowLocalRoot(String(normalized.dropFirst("file://".count))) != nil { return nil }
        guard allowLoopback else { return "local files are not allowed sources" }
        guard allowedPrefixes.isEmpty || allowedPrefixes.contains(where: { normalized.hasPrefix($0) }) else {
            return "\(normalized) is not under an allowed source prefix"
        }
        return nil
    }
}
