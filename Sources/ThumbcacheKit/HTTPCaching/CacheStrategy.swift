import Foundation

/// The HTTP cache core, in the shape of OkHttp's `CacheStrategy` and `CacheInterceptor`: given what is stored
/// for a request (or nothing), the request's `FetchPolicy` and the time, it decides whether to serve the stored
/// response, revalidate it, or fetch; after a failed request, whether the stale response may stand in for the
/// origin; after a 304, what the stored response becomes; and until when any response may be used. The
/// thumbnail pipeline and `DataCache` both ask it, so they cannot drift apart.
struct CacheStrategy: Sendable {
    /// Shared or private (RFC 9111 §1): a shared cache reads `s-maxage` and keeps less (`Storability`).
    let role: CacheRole
    /// The stale-if-error allowance the client asked for (`staleIfError` in either configuration).
    let staleIfError: StaleIfError
    /// Seconds a response stating no lifetime at all is used (`DataCacheConfiguration.lifetimeWhenUnstated`).
    let lifetimeWhenUnstated: TimeInterval?

    init(role: CacheRole, staleIfError: Duration?, lifetimeWhenUnstated: Duration? = nil) {
        self.role = role
        self.staleIfError = StaleIfError(clientAllowance: staleIfError.map { $0 / .seconds(1) }, shared: role.isShared)
        self.lifetimeWhenUnstated = lifetimeWhenUnstated.map { $0 / .seconds(1) }
    }

    /// What to do about one request.
    enum Decision: Sendable {
        /// Use the stored response without asking: it is fresh, or the policy forbids the network.
        case serveStored(freshUntil: Date)
        /// Ask the origin with these conditional headers: a 304 keeps the stored response.
        case conditional([(String, String)])
        /// Ask the origin for the whole response: nothing is stored, or what is has no validator.
        case fetch
        /// `FetchPolicy.offline` and nothing stored: an error.
        case offlineMiss

        /// The headers that make the request conditional: none unless `conditional`.
        var conditionalHeaders: [(String, String)] {
            if case .conditional(let headers) = self { return headers }
            return []
        }
    }

    /// The decision for a request with `policy` at `now`, given its `stored` response. A stale stored response
    /// asked about unconditionally (no validator) is still kept by the caller: the same bytes again keep what was
    /// made of them, and a failure may fall back to it (`staleServe`).
    func decide<Stored: StoredResponse>(_ stored: Stored?, policy: FetchPolicy, now: Date) -> Decision {
        guard let stored else { return policy == .offline ? .offlineMiss : .fetch }
        if policy != .refresh {
            let freshness = freshness(stored, now: now)
            if policy == .offline || freshness.isFresh { return .serveStored(freshUntil: freshness.freshUntil(now: now)) }
        }
        let validators = stored.validators
        return validators.isEmpty ? .fetch : .conditional(validators)
    }

    /// How fresh `stored` is at `now`, for this role.
    func freshness(_ stored: some StoredResponse, now: Date) -> Freshness {
        stored.freshness(now: now, shared: role.isShared, lifetimeWhenUnstated: lifetimeWhenUnstated)
    }

    /// Until when `stored` may be used without asking the origin (`Freshness.freshUntil`).
    func freshUntil(_ stored: some StoredResponse, now: Date) -> Date {
        freshness(stored, now: now).freshUntil(now: now)
    }

    /// Whether `stored` stands in for an origin that failed with `error` (RFC 5861 stale-if-error): only for a
    /// normal request (`refresh` asked for the origin's answer). The allowance counts from the freshness the
    /// origin stated, not from `lifetimeWhenUnstated`.
    func staleServe(_ stored: some StoredResponse, after error: PipelineError, policy: FetchPolicy, now: Date) -> StaleServe? {
        guard policy == .normal else { return nil }
        return staleIfError.serve(stored, after: error, now: now)
    }

    /// `stored` updated by a 304 with `headers` (RFC 9111 §4.3.4).
    func merge<Stored: StoredResponse>(_ stored: Stored, notModified headers: [String: String], requestTime: Date,
                                       responseTime: Date) -> Stored {
        stored.revalidated(headers: headers, requestTime: requestTime, responseTime: responseTime)
    }

    /// Why a response with these kept `headers` may not be kept by this cache, or nil when it may (RFC 9111 §3).
    func refusal(_ headers: [String: String], setsCookie: Bool) -> Uncacheable? {
        Storability.refusal(headers, setsCookie: setsCookie, role: role)
    }
}
