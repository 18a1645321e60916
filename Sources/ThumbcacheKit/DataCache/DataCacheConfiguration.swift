import Foundation

/// How a `DataCache` talks to origins. The defaults suit a server caching data from public origins.
public struct DataCacheConfiguration: Sendable {
    /// Which URLs may be fetched, checked on every redirect hop and on the address connected to. Default: public
    /// addresses only (no loopback, private or link-local), the safe choice when URLs come from users. A local or
    /// internal origin (a test server on 127.0.0.1, a service on the LAN) must be allowed here explicitly.
    public var sourcePolicy = SourcePolicy(allowLoopback: false, allowPrivate: false)
    /// Download size, timeouts, redirects and connections per origin (`FetchLimits.data` unless set). Bodies are
    /// held in memory for `processData`: larger ones than `maxDownloadBytes` fail with `DataCacheError.tooLarge`.
    public var fetchLimits = FetchLimits.data
    /// Sent as `Accept`.
    public var accept = "*/*"
    /// When revalidating a stale value fails with a network error or a 500, 502, 503 or 504, answer the stale value
    /// (CACHED) if it is at most this much past its freshness (RFC 5861's stale-if-error, asked for by the client).
    /// nil: only when the response itself said `stale-if-error`. Never overrides `must-revalidate` or `no-cache`.
    public var staleIfError: Duration?
    /// How long a response that states no freshness at all (no `max-age`, `Expires` or `Last-Modified`) is used
    /// before the origin is asked again. nil (the default): HTTP's rule, asked again on every call (revalidated when
    /// it sent an `ETag`). The seed never expired anything; `.seconds(Int.max)` does the same.
    public var lifetimeWhenUnstated: Duration?
    /// A private cache (an app, one user: the default) or a shared one (a server answering many users), which keeps
    /// nothing marked `private` or that sets a cookie, and reads `s-maxage`.
    public var cacheRole = CacheRole.privateCache
    /// Trims the memory tier while the system is short of memory, as NSCache does (docs/library.md, "Memory
    /// pressure"): the process's shared monitor by default; nil keeps the memory tier's bounds whatever happens.
    public var memoryPressure: MemoryPressureMonitor? = .shared
    /// Resolves host names for the address check in place of the system's resolver (tests).
    var hostResolver: (any HostResolver)?

    public init() {}
}
