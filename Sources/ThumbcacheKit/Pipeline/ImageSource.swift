import Foundation

/// Where an original comes from: an `http(s)` URL, or a local file (`file://` URL or plain path).
/// Normalised so that spellings of the same resource share one cache entry.
public struct ImageSource: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable { case http, file }

    public let kind: Kind
    /// The normalised form: the identity of the cache entry.
    public let normalized: String
    /// The URL to fetch (http; without credentials) or the absolute path to read (file).
    public let location: String

    /// Set for http(s) sources: the checked URL, with any credentials (never part of `normalized` or the key).
    let http: HTTPLocation?

    public init(_ text: String) throws(PipelineError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw .invalidSource(text, "empty") }
        let lower = trimmed.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            let location: HTTPLocation
            do { location = try HTTPLocation(trimmed) } catch { throw .invalidSource(HTTPLocation.redacting(trimmed), error.reason) }
            kind = .http
            normalized = location.url
            self.location = location.url
            http = location
            cacheKey = CacheKeyRule.exact.key(forNormalized: location.url)
        } else if lower.hasPrefix("file://") {
            guard let url = URL(string: trimmed), url.isFileURL else { throw .invalidSource(text, "not a valid file URL") }
            kind = .file
            location = url.standardizedFileURL.path
            normalized = "file://" + location
            http = nil
            cacheKey = CacheKeyRule.exact.key(forNormalized: normalized)
        } else if lower.hasPrefix("data:") {
            throw .invalidSource(String(trimmed.prefix(40)), "data: URLs are not supported; give an http(s) URL or a file")
        } else if lower.contains("://") {
            throw .invalidSource(HTTPLocation.redacting(trimmed), "only http, https and file URLs are supported")
        } else {
            kind = .file
            location = URL(fileURLWithPath: trimmed).standardizedFileURL.path
            normalized = "file://" + location
            http = nil
            cacheKey = CacheKeyRule.exact.key(forNormalized: normalized)
        }
    }

    /// Whether the URL names a user (`user:password@host`, `user@host`, even `@host`). The CLI and the library
    /// send such credentials as Basic auth and keep the answer under the URL without them, as a private cache
    /// may; a shared server must refuse such sources (docs/http-caching.md#credentials).
    public var hasUserInfo: Bool { http?.hasUserInfo == true }

    /// The DiskLru key: hex SHA-256 of the normalised form (64 characters of `[0-9a-f]`), as `CacheKeyRule`
    /// derives it. Computed once here, so lookups on the memory-hit path cost no hashing.
    public private(set) var cacheKey: String

    /// This source under the key `rule` derives (itself, with no hashing, when the rule ignores nothing). The
    /// pipeline keys every source it is given this way (`PipelineConfiguration.cacheKeyRule`); what is fetched
    /// is unchanged.
    public func keyed(by rule: CacheKeyRule) -> ImageSource {
        guard !rule.ignoredQueryParameters.isEmpty, kind == .http else { return self }
        var keyed = self
        keyed.cacheKey = rule.key(forNormalized: normalized)
        return keyed
    }

    public var description: String { normalized }
}
