import Foundation

/// What a cache keeps of a response to judge and revalidate it (RFC 9111 §3): the URL fetched, the kept caching
/// headers (names lower-cased, `CacheMetadata.keptHeaders`), and when the request was sent and its response
/// received (seconds since 1970). A thumbnail entry's `CacheMetadata` and a `DataCache`'s `DataCacheRecord` are
/// both one: `CacheStrategy` judges and updates them alike, while each keeps its own JSON on disk (flat fields,
/// unchanged, so existing caches still read).
protocol StoredResponse: Sendable {
    var url: String { get }
    var headers: [String: String] { get set }
    var requestTime: Double { get set }
    var responseTime: Double { get set }
}

extension StoredResponse {
    /// `lifetimeWhenUnstated` (seconds) stands in for a lifetime the response does not state at all.
    func freshness(now: Date, shared: Bool, lifetimeWhenUnstated: TimeInterval? = nil) -> Freshness {
        Freshness(headers: headers, requestTime: requestTime, responseTime: responseTime, url: url, now: now,
                  shared: shared, lifetimeWhenUnstated: lifetimeWhenUnstated)
    }

    /// The conditional request headers that revalidate it (RFC 9110 §13.1); none without a validator.
    var validators: [(String, String)] {
        var conditional: [(String, String)] = []
        if let etag = headers["etag"] { conditional.append(("If-None-Match", etag)) }
        if let lastModified = headers["last-modified"] { conditional.append(("If-Modified-Since", lastModified)) }
        return conditional
    }

    /// Updated by a 304 (RFC 9111 §4.3.4): each header it carries replaces the stored one of that name, the others
    /// stay, and its request and response times become the stored response's, so its age starts again.
    func revalidated(headers fresh: [String: String], requestTime: Date, responseTime: Date) -> Self {
        var updated = self
        updated.headers.merge(fresh) { _, new in new }
        (updated.requestTime, updated.responseTime) = (requestTime.timeIntervalSince1970, responseTime.timeIntervalSince1970)
        return updated
    }
}

extension CacheMetadata: StoredResponse {}
