import Foundation

/// Where an original comes from: an `http(s)` URL, or a local file (`file://` URL or plain path).
/// Normalised so that spellings of the same resource share one cache entry.
public struct ImageSource: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable { case http, file }

    public let kind: Kind
    /// The normalised form: the identity of the cache entry.
    public let normalized: String
    /// The URL to fetch (http) or the absolute path to read (file).
    public let location: String

    public init(_ text: String) throws(PipelineError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw .invalidSource(text, "empty") }
        let lower = trimmed.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            guard var components = URLComponents(string: trimmed), let host = components.host, !host.isEmpty else {
                throw .invalidSource(text, "not a valid http(s) URL")
            }
            // Scheme and host are case-insensitive; the default port and the fragment do not name another resource.
            components.scheme = components.scheme?.lowercased()
            components.host = host.lowercased()
            if (components.scheme == "http" && components.port == 80) || (components.scheme == "https" && components.port == 443) {
                components.port = nil
            }
            components.fragment = nil
            if components.path.isEmpty { components.path = "/" }
            guard let url = components.string else { throw .invalidSource(text, "not a valid http(s) URL") }
            kind = .http
            normalized = url
            location = url
            cacheKey = SHA256.hex(url)
        } else if lower.hasPrefix("file://") {
            guard let url = URL(string: trimmed), url.isFileURL else { throw .invalidSource(text, "not a valid file URL") }
            kind = .file
            location = url.standardizedFileURL.path
            normalized = "file://" + location
            cacheKey = SHA256.hex(normalized)
        } else if lower.contains("://") {
            throw .invalidSource(text, "only http, https and file URLs are supported")
        } else {
            kind = .file
            location = URL(fileURLWithPath: trimmed).standardizedFileURL.path
            normalized = "file://" + location
            cacheKey = SHA256.hex(normalized)
        }
    }

    /// The DiskLru key: hex SHA-256 of the normalised form (64 characters of `[0-9a-f]`).
    /// Computed once here, so lookups on the memory-hit path cost no hashing.
    public let cacheKey: String

    public var description: String { normalized }
}
