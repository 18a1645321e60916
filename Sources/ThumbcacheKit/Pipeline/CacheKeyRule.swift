import Foundation

/// How a source's URL becomes its DiskLru key: the one place that derives it. By default the whole normalised
/// URL; query parameters named in `ignoredQueryParameters` are left out, so URLs of one object that differ only
/// in a rotating token (a presigned S3 URL's `X-Amz-Signature`, `X-Amz-Date`…) share one entry. The dropped
/// parameters are still sent to the origin: only the key ignores them.
public struct CacheKeyRule: Sendable, Equatable {
    /// Query parameter names to leave out of the key. `*` matches any run of characters (`X-Amz-*`); the match
    /// is case-sensitive, as query names are, and made on the percent-decoded name.
    public var ignoredQueryParameters: [String]

    public init(ignoredQueryParameters: [String] = []) {
        self.ignoredQueryParameters = ignoredQueryParameters
    }

    /// Keys are the whole normalised URL.
    public static let exact = CacheKeyRule()

    /// The DiskLru key of a source's normalised form: hex SHA-256 (64 characters of `[0-9a-f]`) of it, with the
    /// ignored query parameters removed.
    public func key(forNormalized normalized: String) -> String {
        SHA256Digest.hex(keyedForm(of: normalized))
    }

    /// The normalised form the key is the digest of: `normalized` without the ignored query parameters (and
    /// without its `?` when none is left). The remaining parameters keep their order.
    public func keyedForm(of normalized: String) -> String {
        guard !ignoredQueryParameters.isEmpty, let question = normalized.firstIndex(of: "?") else { return normalized }
        let query = normalized[normalized.index(after: question)...]
        let kept = query.split(separator: "&", omittingEmptySubsequences: false).filter { parameter in
            let name = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let decoded = String(name).removingPercentEncoding ?? String(name)
            return !ignores(decoded)
        }
        let base = normalized[..<question]
        return kept.isEmpty ? String(base) : base + "?" + kept.joined(separator: "&")
    }

    /// Whether the query parameter `name` is left out of the key.
    public func ignores(_ name: String) -> Bool {
        ignoredQueryParameters.contains { Self.glob($0[...], matches: name[...]) }
    }

    /// `*` matches any run of characters (none included); every other character only itself.
    static func glob(_ pattern: Substring, matches text: Substring) -> Bool {
        guard let star = pattern.firstIndex(of: "*") else { return pattern == text }
        let prefix = pattern[..<star], rest = pattern[pattern.index(after: star)...]
        guard text.hasPrefix(prefix) else { return false }
        var tail = text.dropFirst(prefix.count)
        while true {
            if glob(rest, matches: tail) { return true }
            if tail.isEmpty { return false }
            tail = tail.dropFirst()
        }
    }
}
