import Foundation

/// Value 0 of every cache entry: what was fetched, when, with which caching headers, and what is stored.
/// JSON, documented in docs/disk-layout.md, so other tools can read it.
public struct CacheMetadata: Codable, Sendable, Equatable {
    public static let currentVersion = 1

    public var version = CacheMetadata.currentVersion
    /// The normalised source URL (`http(s)://…` or `file:///…`).
    public var url: String
    /// Response headers that matter for caching, names lower-cased: etag, last-modified, cache-control,
    /// date, expires, age. For files: last-modified is the file's mtime, etag its size and mtime.
    public var headers: [String: String]
    /// When the request that produced these headers was sent and its response received (seconds since 1970).
    public var requestTime: Double
    public var responseTime: Double
    public var original: Original
    /// Ladder sizes whose thumbnails are stored, ascending.
    public var variants: [Int]

    public struct Original: Codable, Sendable, Equatable {
        /// "jpeg" or "png", sniffed from the bytes.
        public var format: String
        /// Upright dimensions (after EXIF orientation).
        public var width: Int
        public var height: Int
        public var bytes: Int
    }

    public init(url: String, headers: [String: String], requestTime: Date, responseTime: Date, original: Original, variants: [Int] = []) {
        self.url = url
        self.headers = headers
        self.requestTime = requestTime.timeIntervalSince1970
        self.responseTime = responseTime.timeIntervalSince1970
        self.original = original
        self.variants = variants
    }

    /// The header names kept (RFC 9111 needs these to judge freshness and to revalidate).
    public static let keptHeaders = ["etag", "last-modified", "cache-control", "date", "expires", "age", "vary"]

    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)) ?? Data()
    }

    public static func decode(_ data: Data) -> CacheMetadata? {
        guard let metadata = try? JSONDecoder().decode(CacheMetadata.self, from: data),
              metadata.version == currentVersion else { return nil }
        return metadata
    }
}
