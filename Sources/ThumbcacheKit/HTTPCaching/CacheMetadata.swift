import Foundation
import ImageDecode

/// Value 0 of every cache entry: what was fetched, when, with which caching headers, and what is stored.
/// JSON, documented in docs/disk-layout.md, so other tools can read it.
package struct CacheMetadata: Codable, Sendable, Equatable {
    // 2: `thumbnails` (several formats per ladder size) replaces `variants`; `original.alpha`.
    // 3: `original.digest`, which ties every thumbnail and processed image to the exact original it was made
    //    from. An entry of 2 does not decode: it is a miss, fetched again and replaced.
    package static let currentVersion = 3

    package var version = CacheMetadata.currentVersion
    /// The normalised source URL (`http(s)://…` or `file:///…`).
    package var url: String
    /// Response headers that matter for caching, names lower-cased: etag, last-modified, cache-control,
    /// date, expires, age. For files: last-modified is the file's mtime, etag its size and mtime.
    package var headers: [String: String]
    /// When the request that produced these headers was sent and its response received (seconds since 1970).
    package var requestTime: Double
    package var responseTime: Double
    package var original: Original
    /// The stored thumbnails, one item per ladder size that has any, ascending by size.
    package var thumbnails: [StoredSize]

    /// Ladder sizes with at least one stored thumbnail, ascending.
    package var thumbnailSizes: [Int] { thumbnails.map(\.size) }

    /// One ladder size's DiskLru value: its thumbnails in several formats, packed back to back in this order.
    package struct StoredSize: Codable, Sendable, Equatable {
        package var size: Int
        package var parts: [Part]

        package struct Part: Codable, Sendable, Equatable {
            /// "jpeg", "png", "webp" or "avif".
            package var format: String
            package var bytes: Int
        }

        /// Where `format`'s bytes are in the value, or nil when that format is not stored.
        package func range(of format: String) -> Range<Int>? {
            var offset = 0
            for part in parts {
                if part.format == format { return offset..<offset + part.bytes }
                offset += part.bytes
            }
            return nil
        }

        /// The value's whole length: every part.
        package var totalBytes: Int { parts.reduce(0) { $0 + $1.bytes } }
    }

    /// The stored thumbnail formats of `size`, in value order.
    package func formats(ofSize size: Int) -> [String] {
        thumbnails.first { $0.size == size }?.parts.map(\.format) ?? []
    }

    package struct Original: Codable, Sendable, Equatable {
        /// "jpeg", "png", "webp", "gif" or "avif", sniffed from the bytes.
        package var format: String
        /// Upright dimensions (after EXIF orientation).
        package var width: Int
        package var height: Int
        package var bytes: Int
        /// Whether it has an alpha channel: its default thumbnail format is then PNG, else JPEG.
        package var alpha: Bool
        /// SHA-256 of its bytes, lowercase hex. A thumbnail or processed image is kept and served for this
        /// original only when it was made from an original of this digest: the byte count alone let an image
        /// changed in place (same length) serve renders of the old one.
        package var digest: String
        /// True when it is greyscale (`ImageInfo.isGrey`): its WebP thumbnails (RGB, no longer exactly neutral) do not
        /// stand in for it (`StandIn`), so renders stay grey. Absent (nil) for colour, and in entries made before.
        package var grey: Bool?
        /// Frames, for GIF and WebP originals (`ImageInfo.frameCount`); nil for other formats and in entries made
        /// before animations were read (`mayKeepAnimation` then assumes a GIF or WebP may be animated).
        package var frames: Int?

        package init(format: String, width: Int, height: Int, bytes: Int, alpha: Bool = false, digest: String, grey: Bool = false,
                     frames: Int? = nil) {
            (self.format, self.width, self.height, self.bytes, self.alpha) = (format, width, height, bytes, alpha)
            self.digest = digest
            self.grey = grey ? true : nil
            self.frames = frames
        }

        /// What its header said, as far as the entry keeps it: what the answer's format is decided from
        /// (`Rendition.outputFormat`) without reading the original again. Frames unknown (an entry made before
        /// animations were read) count as a still.
        package var info: ImageInfo? {
            guard let source = ImageFormat(rawValue: format) else { return nil }
            return ImageInfo(format: source, width: width, height: height, hasAlpha: alpha, frameCount: frames, isGrey: grey ?? false)
        }

        /// An SVG: planned enlarged to the box whatever `enlarge` says (`ProcessingPlan.vector`).
        package var isVector: Bool { ImageFormat(rawValue: format)?.isVector == true }

        /// Whether a render of it in `format` with `options` may keep an animation (`ProcessingOptions.keepsAnimation`
        /// on what is known without reading it): then it is rendered from itself, never from a stored thumbnail.
        package func mayKeepAnimation(_ options: ProcessingOptions, in format: ImageFormat, limits: RenderLimits) -> Bool {
            guard let source = ImageFormat(rawValue: self.format) else { return false }
            var info = ImageInfo(format: source, width: width, height: height)
            info.frameCount = frames ?? 2  // unknown: perhaps animated
            return options.keepsAnimation(of: info, in: format, limits: limits)
        }
    }

    package init(url: String, headers: [String: String], requestTime: Date, responseTime: Date, original: Original,
                thumbnails: [StoredSize] = []) {
        self.url = url
        self.headers = headers
        self.requestTime = requestTime.timeIntervalSince1970
        self.responseTime = responseTime.timeIntervalSince1970
        self.original = original
        self.thumbnails = thumbnails
    }

    /// The header names kept (RFC 9111 needs these to judge freshness and to revalidate).
    package static let keptHeaders = ["etag", "last-modified", "cache-control", "date", "expires", "age", "vary"]

    package func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)) ?? Data()
    }

    package static func decode(_ data: Data) -> CacheMetadata? {
        guard let metadata = try? JSONDecoder().decode(CacheMetadata.self, from: data),
              metadata.version == currentVersion else { return nil }
        return metadata
    }
}
