import Foundation
import ImageDecode

/// Where a thumbnail came from, cheapest first.
public enum ServedFrom: String, Sendable, Codable {
    /// The in-process memory cache.
    case memory
    /// The disk cache, fresh: no request was made.
    case disk
    /// The disk cache, after the origin answered 304 Not Modified.
    case revalidated
    /// A new download.
    case network
    /// The disk cache, stale, because revalidation failed and stale-if-error allowed it (see `staleBecause`).
    case stale
}

/// A thumbnail and how it was obtained.
public struct ThumbnailResult: Sendable {
    public var data: Data
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    public var servedFrom: ServedFrom
    public var source: String
    public var cacheKey: String
    /// Bytes downloaded to produce this result (0 unless `servedFrom == .network`).
    public var bytesDownloaded: Int
    /// Whether a thumbnail had to be decoded and resized, or an SVG sanitised (false when a stored one was served).
    public var rendered: Bool
    /// Bytes this request wrote to the disk cache (a new original and/or a new thumbnail).
    public var bytesStored: Int = 0
    /// For `servedFrom == .stale`: why the origin could not be asked, and how far past fresh the copy was.
    public var staleBecause: StaleServe?
    /// Set when the thumbnail was made but storing it (or its original) failed, e.g. a full cache disk:
    /// the thumbnail is good, the next request makes it again. nil when it was stored or not meant to be.
    public var notCachedBecause: String?
    /// Set when the origin's answer may not be kept (`no-store`; for a shared cache also `private` or
    /// `Set-Cookie`): nothing was stored, and a server tells its clients the same.
    package var uncacheable: Uncacheable?
    /// The origin said `no-cache`: the source is revalidated before every use (never a memory hit), and a server
    /// tells its clients to do the same.
    package var revalidatesEveryUse = false
    /// When the source stops being fresh (a CDN may keep the thumbnail until then).
    public var freshUntil: Date?
    /// The origin's Last-Modified, when it sent one.
    public var lastModified: Date?
    /// How long the origin took (download or revalidation), and the render (decode, resize, encode, or the
    /// stored thumbnail's read); nil when this request did neither (a memory hit).
    package var fetchDuration: Duration?
    package var renderDuration: Duration?
    /// Lowercase hex SHA-256 of `data` (a server's strong ETag), computed once per render, kept with memory hits.
    public var contentDigest: String?
}

/// Why a stale thumbnail was served instead of an error.
public struct StaleServe: Sendable, Equatable {
    /// The revalidation's failure, as its error would have said it.
    public var originError: String
    /// Seconds the entry was past its freshness lifetime.
    public var staleness: TimeInterval
}

/// What `thumbcache info` shows about a cached source.
package struct EntryInfo: Sendable {
    package var metadata: CacheMetadata
    package var cacheKey: String
    package var freshness: Freshness
    package var storedBytes: Int64
    /// The length of each DiskLru value of the entry, by index: 0 the metadata JSON, 1 the original, then one
    /// per ladder size (`SizeLadder.valueIndex(of:)`; 0 where that size has no thumbnail).
    package var valueLengths: [Int64] = []
    /// The source's processed images stored in `variants/` (imgproxy options), by their canonical options.
    package var processed: [Processed] = []

    /// One stored processed image of the source.
    package struct Processed: Sendable, Equatable {
        /// The options' canonical form (`ProcessingOptions.canonical`); empty for none.
        package var options: String
        /// The format asked for, or `auto` (the source's or the options' own).
        package var asked: String
        /// The format, size and bytes of the stored image.
        package var format: String
        package var width: Int
        package var height: Int
        package var bytes: Int64

        /// For JSON (`info --json`, the demo's entry panel).
        package var dictionary: [String: Any] {
            ["options": options, "asked": asked, "format": format, "width": width, "height": height, "bytes": bytes]
        }
    }
}
