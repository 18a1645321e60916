import Foundation
import HTTPTypes
import Hummingbird
import ImageDecode
import ThumbcacheKit

/// Turns a thumbnail into a CDN-correct answer: a strong ETag over the bytes, the origin's Last-Modified,
/// `Cache-Control: public, max-age=N` with N the source's remaining freshness clamped to the configured
/// bounds (a CDN never keeps a thumbnail longer than its source was fresh), how it was served and the
/// timings. What the origin forbade a shared cache to keep is passed on: `no-store` (and `Vary: *`) as
/// `no-store`, `private` (and `Set-Cookie`) as `private, max-age=N`, so no CDN keeps it either.
/// A matching conditional request gets a 304 with the same caching headers and no body.
struct ThumbnailResponder: Sendable {
    var minTTL: Int
    var maxTTL: Int

    /// `disposition`: the processing URL's `fn`/`att`, sent with a 200. `variation`: the request fields the answer
    /// depends on (a format from `Accept`, client hints), which shared caches must key on (`Vary`, on the 304 too); a
    /// URL with an extension answers the same to every client and sends no `Vary`. `second`: now, in
    /// whole seconds since 1970, the clock of the `Date` field the answer is sent with.
    func answer(for result: ThumbnailResult, requestHeaders: HTTPFields, variation: AnswerVariation,
                disposition: PreparedDisposition? = nil, elapsed: Duration, second: Int = Int(time(nil))) -> ServerAnswer {
        let etag = "\"" + (result.contentDigest ?? SHA256Digest.hex(bytes: result.data)).prefix(32) + "\""
        var headers: HTTPFields = [
            .eTag: etag,
            .cacheControl: cacheControl(result, second: second),
            Self.xThumbcache: result.servedFrom.rawValue,
            Self.serverTimingField: serverTiming(result, elapsed: elapsed),
        ]
        if let lastModified = result.lastModified { headers[.lastModified] = HTTPDate.format(lastModified) }
        variation.apply(to: &headers)
        if ConditionalRequest(requestHeaders).isNotModified(etag: etag, lastModified: result.lastModified) {
            return ServerAnswer(status: .notModified, headers: headers, body: nil, served: result.servedFrom.rawValue)
        }
        headers[.contentType] = result.format.mimeType
        if let disposition { headers[.contentDisposition] = disposition.value(for: result.format) }
        headers[.contentLength] = String(result.data.count)
        return ServerAnswer(status: .ok, headers: headers, body: ByteBuffer(bytes: result.data), served: result.servedFrom.rawValue)
    }

    func cacheControl(_ result: ThumbnailResult, second: Int) -> String {
        switch result.uncacheable {
        case nil where result.revalidatesEveryUse: "public, no-cache"
        case nil: "public, max-age=\(maxAge(result, second: second))"
        case .noStore, .varyAny: "no-store"
        case .privateResponse, .setsCookie: "private, max-age=\(maxAge(result, second: second))"
        }
    }

    /// Whole seconds from the `Date` the answer is sent with to the source's last fresh second: a cache that
    /// counts from `Date` stops at `freshUntil` or before, and the value is the same all through one second,
    /// so a head made for this second holds for all of it (`PreparedHeads`).
    func maxAge(_ result: ThumbnailResult, second: Int) -> Int {
        let remaining = result.freshUntil.map { $0.timeIntervalSince1970.rounded(.down) - Double(second) } ?? 0
        guard remaining.isFinite else { return maxTTL }
        return min(maxTTL, max(minTTL, Int(remaining.rounded(.down).clamped(to: -1e12...1e12))))
    }

    /// `fetch;dur=…, render;dur=…, total;dur=…` in milliseconds (the demo page reads `total`).
    func serverTiming(_ result: ThumbnailResult, elapsed: Duration) -> String {
        // Appended into one string: a hit writes only `total`, on every answer.
        var text = ""
        if let fetch = result.fetchDuration, result.servedFrom != .memory, result.servedFrom != .disk {
            text += "fetch;dur=\(Self.format(fetch)), "
        }
        if let render = result.renderDuration, result.servedFrom != .memory { text += "render;dur=\(Self.format(render)), " }
        text += "total;dur="
        text += Self.format(elapsed)
        return text
    }

    private static func format(_ duration: Duration) -> String { duration.millisecondsText }

    static let xThumbcache = HTTPField.Name("X-Thumbcache")!
    static let serverTimingField = HTTPField.Name("Server-Timing")!
}

extension Double {
    func clamped(to range: ClosedRange<Double>) -> Double { Swift.min(range.upperBound, Swift.max(range.lowerBound, self)) }
}
