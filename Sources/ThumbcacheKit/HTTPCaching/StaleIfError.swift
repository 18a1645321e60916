import Foundation

/// RFC 5861 §4 stale-if-error: whether a stale stored response may stand in for an origin that failed.
///
/// The allowance comes from the response's own `stale-if-error=N`, which the RFC lets override other freshness
/// information, or from the client (`staleIfError` in `PipelineConfiguration` or `DataCacheConfiguration`), which
/// never overrides the origin's `must-revalidate` or `no-cache` (RFC 9111 §4.2.4). Only failures of the origin count: a network error or a
/// 500, 502, 503 or 504. A 404 or a body that is not an image is an answer, and surfaces.
struct StaleIfError: Sendable {
    var clientAllowance: TimeInterval?
    /// Freshness as a shared cache reads it (`s-maxage`).
    var shared = false

    /// What to tell the caller when the stale copy is served, or nil when `error` must surface.
    func serve(_ stored: some StoredResponse, after error: PipelineError, now: Date) -> StaleServe? {
        serve(stored.freshness(now: now, shared: shared), after: error)
    }

    /// The same for any stored response, judged by its `freshness` now (read with this `shared`).
    func serve(_ freshness: Freshness, after error: PipelineError) -> StaleServe? {
        guard Self.isOriginFailure(error) else { return nil }
        let control = freshness.cacheControl
        var allowance = control.staleIfError.map(TimeInterval.init)
        if let client = clientAllowance, !control.mustRevalidate, !control.noCache {
            allowance = max(allowance ?? 0, client)
        }
        let staleness = max(0, -freshness.remaining)
        guard let allowance, staleness <= allowance else { return nil }
        return StaleServe(originError: error.description, staleness: staleness)
    }

    static func isOriginFailure(_ error: PipelineError) -> Bool {
        switch error {
        case .network: true
        case .httpStatus(_, let status): [500, 502, 503, 504].contains(status)
        default: false
        }
    }
}
