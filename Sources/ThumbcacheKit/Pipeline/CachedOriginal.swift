import Foundation

/// A source's original as the cache holds it, with the origin's response headers: URLCache's cached response.
public struct CachedOriginal: Sendable {
    /// The original's bytes, as the origin sent them.
    public var data: Data
    /// The media type of the original's format as decoded from its bytes (`image/jpeg`, `image/png`…): what a
    /// cache can vouch for (the origin's `Content-Type` is not among the headers kept).
    public var contentType: String
    /// The origin's caching headers as stored (`CacheMetadata.headers`: names lowercased).
    public var headers: [String: String]
    /// Where the bytes came from: `disk` (fresh), `revalidated` (a 304), `network`, `stale` (stale-if-error).
    public var servedFrom: ServedFrom
    /// The normalised source URL and the DiskLru key it is stored under.
    public var source: String
    public var cacheKey: String
    /// Until when the original is fresh; once stale, when it went stale (`Freshness.freshUntil`).
    public var freshUntil: Date
}
