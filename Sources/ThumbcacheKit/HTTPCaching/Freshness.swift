import Foundation

/// RFC 9111 freshness, as OkHttp's CacheStrategy computes it for a private cache: how old a stored response
/// is, how long it stays fresh, and whether it may be served without asking the origin. A shared cache (`shared`)
/// takes `s-maxage` before `max-age` (§4.2.1).
package struct Freshness: Sendable, Equatable {
    package let age: TimeInterval
    package let lifetime: TimeInterval
    package let cacheControl: CacheControl
    /// How the lifetime was obtained: "max-age", "expires", "heuristic" or "none".
    package let source: String

    package init(metadata: CacheMetadata, now: Date, shared: Bool = false) {
        self.init(headers: metadata.headers, requestTime: metadata.requestTime, responseTime: metadata.responseTime,
                  url: metadata.url, now: now, shared: shared)
    }

    /// Any stored response (a thumbnail entry's metadata, a `DataCache` record): its kept caching headers (names
    /// lower-cased), when it was requested and received (seconds since 1970), and its URL (a query rules out the
    /// heuristic lifetime). `lifetimeWhenUnstated` (seconds) is the lifetime of a response that states none
    /// (`DataCacheConfiguration.lifetimeWhenUnstated`); nil keeps HTTP's rule, no lifetime.
    package init(headers: [String: String], requestTime: Double, responseTime: Double, url: String, now: Date,
                shared: Bool = false, lifetimeWhenUnstated: TimeInterval? = nil) {
        cacheControl = CacheControl(parsing: headers["cache-control"].map { [$0] } ?? [])
        // Stored times are input too (a damaged or old metadata file): clamped, they keep every result finite.
        let requestTime = HTTPDate.clamped(requestTime)
        let responseTime = HTTPDate.clamped(responseTime)
        let now = HTTPDate.clamped(now.timeIntervalSince1970)
        let served = headers["date"].flatMap(HTTPDate.parse)?.timeIntervalSince1970

        // Age (RFC 9111 §4.2.3). An Age that is not delta-seconds (`1e400`, `-5`) is not an Age: ignored, as
        // OkHttp does; a huge one counts as 2^31 s (§1.2.2), which makes the response stale.
        let apparentAge = max(0, responseTime - (served ?? responseTime))
        let ageValue = headers["age"].flatMap { HTTPInteger.deltaSeconds($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        let correctedAgeValue = TimeInterval(ageValue) + max(0, responseTime - requestTime)
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        age = correctedInitialAge + max(0, now - responseTime)

        // Lifetime (RFC 9111 §4.2.1).
        if shared, let sharedMaxAge = cacheControl.sharedMaxAge {
            lifetime = TimeInterval(sharedMaxAge)
            source = "s-maxage"
        } else if let maxAge = cacheControl.maxAge {
            lifetime = TimeInterval(maxAge)
            source = "max-age"
        } else if let expiresText = headers["expires"] {
            let expires = HTTPDate.parse(expiresText)?.timeIntervalSince1970 ?? 0  // invalid: already expired
            lifetime = max(0, expires - (served ?? responseTime))
            source = "expires"
        } else if let lastModified = headers["last-modified"].flatMap(HTTPDate.parse)?.timeIntervalSince1970,
                  !url.contains("?") {
            // Heuristic (§4.2.2): 10% of the time since last modification, as OkHttp and browsers do.
            lifetime = max(0, ((served ?? responseTime) - lastModified) / 10)
            source = "heuristic"
        } else if let lifetimeWhenUnstated {
            lifetime = lifetimeWhenUnstated
            source = "unstated"
        } else {
            lifetime = 0
            source = "none"
        }
    }

    /// Fresh responses are served straight from the cache; `no-cache` requires revalidation every time.
    package var isFresh: Bool {
        !cacheControl.noCache && lifetime > age
    }

    /// Seconds of freshness left (negative when stale).
    package var remaining: TimeInterval { lifetime - age }

    /// Until when the response may be used without asking the origin, judged at `now`: the end of its freshness
    /// while fresh (at most `Date.distantFuture`), else when it went stale, or `now` when `no-cache` makes every
    /// use ask. The one rule for every `freshUntil` (memory entries, results, `DataCache` values).
    package func freshUntil(now: Date) -> Date {
        guard isFresh else { return now.addingTimeInterval(min(0, remaining)) }
        return now.addingTimeInterval(min(remaining, Date.distantFuture.timeIntervalSince(now)))
    }

    /// For a person: "fresh for 90 s (max-age)", "stale by 30 s (expires)", or, when `no-cache` makes every
    /// use revalidate whatever the lifetime says, "revalidated on every use (no-cache; by max-age it would be
    /// fresh for 90 s)". Whole seconds, never a negative count.
    package var summary: String {
        let seconds = String(format: "%.0f", abs(remaining).rounded(.down))
        let lifetimeSays = remaining > 0 ? "fresh for \(seconds) s" : "stale by \(seconds) s"
        if cacheControl.noCache { return "revalidated on every use (no-cache; by \(source) it would be \(lifetimeSays))" }
        return "\(lifetimeSays) (\(source))"
    }
}
