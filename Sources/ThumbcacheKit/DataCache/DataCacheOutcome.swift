/// How `DataCache.fetchData(for:)` obtained its answer. Printed, it reads as the seed's: FETCHED, CACHED, FAILED.
public enum DataCacheOutcome: Sendable, CustomStringConvertible {
    /// Downloaded from the origin just now (also for callers that waited on that same download).
    case fetched
    /// From the cache: memory, or the disk tier while fresh, or kept after the origin answered 304 Not Modified,
    /// or a stale copy standing in for an origin that failed (stale-if-error). No bytes were downloaded.
    case cached
    /// No value: the reason is a `DataCacheError`.
    case failed(any Error)

    public var description: String {
        switch self {
        case .fetched: "FETCHED"
        case .cached: "CACHED"
        case .failed: "FAILED"
        }
    }

    /// The failure, or nil when a value was fetched or cached.
    public var error: (any Error)? {
        guard case .failed(let error) = self else { return nil }
        return error
    }
}
