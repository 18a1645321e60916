import Foundation
import Testing
@testable import ThumbcacheKit

/// `CacheStrategy`'s decision table, with `now` given: no verdict depends on the clock or on a busy machine.
@Suite struct CacheStrategyTests {
    /// A fixed moment at which every stored response below was requested and received.
    static let stored = Date(timeIntervalSince1970: 1_700_000_000)
    static let lastModified = "Tue, 14 Nov 2023 22:00:00 GMT"

    static let privateCache = CacheStrategy(role: .privateCache, staleIfError: nil)
    static let sharedCache = CacheStrategy(role: .shared(ignoringSetCookie: false), staleIfError: nil)

    func metadata(_ headers: [String: String]) -> CacheMetadata {
        CacheMetadata(url: "http://127.0.0.1/a.jpg", headers: headers, requestTime: Self.stored, responseTime: Self.stored,
                      original: .init(format: "jpeg", width: 1, height: 1, bytes: 1, digest: "d"))
    }

    func record(_ headers: [String: String]) -> DataCacheRecord {
        DataCacheRecord(key: "k", url: "http://127.0.0.1/data", headers: headers, requestTime: Self.stored.timeIntervalSince1970,
                        responseTime: Self.stored.timeIntervalSince1970, bytes: 1)
    }

    /// `seconds` after the responses were stored.
    func at(_ seconds: Double) -> Date { Self.stored.addingTimeInterval(seconds) }

    /// The decision in words, so a failed check shows what was decided.
    func describe(_ decision: CacheStrategy.Decision) -> String {
        switch decision {
        case .serveStored(let freshUntil): "serve until +\(Int(freshUntil.timeIntervalSince(Self.stored)))"
        case .conditional(let headers): "conditional " + headers.map { "\($0.0): \($0.1)" }.joined(separator: ", ")
        case .fetch: "fetch"
        case .offlineMiss: "offline miss"
        }
    }

    @Test func nothingStoredIsFetchedUnlessOffline() {
        let none: CacheMetadata? = nil
        #expect(describe(Self.privateCache.decide(none, policy: .normal, now: at(0))) == "fetch")
        #expect(describe(Self.privateCache.decide(none, policy: .refresh, now: at(0))) == "fetch")
        #expect(describe(Self.privateCache.decide(none, policy: .offline, now: at(0))) == "offline miss")
    }

    @Test func freshIsServedUntilItsLifetimeEnds() {
        let fresh = metadata(["cache-control": "max-age=100", "etag": "\"a\""])
        #expect(describe(Self.privateCache.decide(fresh, policy: .normal, now: at(10))) == "serve until +100")
        #expect(Self.privateCache.freshUntil(fresh, now: at(10)) == at(100))
    }

    @Test func staleWithValidatorsIsAskedConditionally() {
        let stale = metadata(["cache-control": "max-age=100", "etag": "\"a\"", "last-modified": Self.lastModified])
        #expect(describe(Self.privateCache.decide(stale, policy: .normal, now: at(500)))
                == "conditional If-None-Match: \"a\", If-Modified-Since: \(Self.lastModified)")
        let etagOnly = metadata(["cache-control": "max-age=100", "etag": "\"a\""])
        #expect(describe(Self.privateCache.decide(etagOnly, policy: .normal, now: at(500))) == "conditional If-None-Match: \"a\"")
    }

    @Test func staleWithoutValidatorsIsFetchedWhole() {
        let stale = metadata(["cache-control": "max-age=100"])
        #expect(describe(Self.privateCache.decide(stale, policy: .normal, now: at(500))) == "fetch")
    }

    @Test func refreshAsksEvenWhenFresh() {
        let fresh = metadata(["cache-control": "max-age=100", "etag": "\"a\""])
        #expect(describe(Self.privateCache.decide(fresh, policy: .refresh, now: at(10))) == "conditional If-None-Match: \"a\"")
        let noValidator = metadata(["cache-control": "max-age=100"])
        #expect(describe(Self.privateCache.decide(noValidator, policy: .refresh, now: at(10))) == "fetch")
    }

    @Test func offlineServesWhatIsStoredFreshOrNot() {
        let stored = metadata(["cache-control": "max-age=100", "etag": "\"a\""])
        #expect(describe(Self.privateCache.decide(stored, policy: .offline, now: at(10))) == "serve until +100")
        // Stale: served, and its freshUntil says when it went stale, so nothing treats it as fresh.
        #expect(describe(Self.privateCache.decide(stored, policy: .offline, now: at(500))) == "serve until +100")
    }

    @Test func noCacheRevalidatesEveryUse() {
        let noCache = metadata(["cache-control": "no-cache, max-age=999", "etag": "\"a\""])
        #expect(describe(Self.privateCache.decide(noCache, policy: .normal, now: at(10))) == "conditional If-None-Match: \"a\"")
        // Offline it is still served, but usable no longer than now.
        #expect(describe(Self.privateCache.decide(noCache, policy: .offline, now: at(10))) == "serve until +10")
        #expect(Self.privateCache.freshUntil(noCache, now: at(10)) == at(10))
    }

    @Test func sharedMaxAgeCountsInASharedCacheOnly() {
        let response = metadata(["cache-control": "max-age=10, s-maxage=600", "etag": "\"a\""])
        #expect(describe(Self.privateCache.decide(response, policy: .normal, now: at(100))) == "conditional If-None-Match: \"a\"")
        #expect(describe(Self.sharedCache.decide(response, policy: .normal, now: at(100))) == "serve until +600")
        #expect(Self.sharedCache.freshness(response, now: at(100)).source == "s-maxage")
    }

    @Test func staleIfErrorServesWithinTheAllowanceOnly() {
        // max-age=60, asked 160 s after it was stored: 100 s stale.
        let stale = metadata(["cache-control": "max-age=60", "etag": "\"a\""])
        let down = PipelineError.network(url: "http://127.0.0.1/a.jpg", reason: "connection refused")
        let generous = CacheStrategy(role: .privateCache, staleIfError: .seconds(300))
        let served = generous.staleServe(stale, after: down, policy: .normal, now: at(160))
        #expect(served == StaleServe(originError: down.description, staleness: 100))
        let strict = CacheStrategy(role: .privateCache, staleIfError: .seconds(50))
        #expect(strict.staleServe(stale, after: down, policy: .normal, now: at(160)) == nil, "100 s stale is over 50 s")
        #expect(Self.privateCache.staleServe(stale, after: down, policy: .normal, now: at(160)) == nil, "no allowance")
        #expect(generous.staleServe(stale, after: down, policy: .refresh, now: at(160)) == nil, "refresh wants the origin's answer")
        #expect(generous.staleServe(stale, after: .httpStatus(url: "http://127.0.0.1/a.jpg", status: 404), policy: .normal,
                                    now: at(160)) == nil, "a 404 is an answer, not a failure")
        let ownAllowance = metadata(["cache-control": "max-age=60, stale-if-error=200"])
        #expect(Self.privateCache.staleServe(ownAllowance, after: down, policy: .normal, now: at(160)) != nil)
        #expect(Self.privateCache.staleServe(ownAllowance, after: down, policy: .normal, now: at(261)) == nil, "201 s > 200 s")
        let mustRevalidate = metadata(["cache-control": "max-age=60, must-revalidate"])
        #expect(generous.staleServe(mustRevalidate, after: down, policy: .normal, now: at(160)) == nil)
    }

    @Test func notModifiedUpdatesTheStoredHeadersAndTimes() {
        let stale = metadata(["cache-control": "max-age=10", "etag": "\"a\"", "last-modified": Self.lastModified,
                              "content-type": "image/jpeg"])
        let merged = Self.privateCache.merge(stale, notModified: ["cache-control": "max-age=600", "etag": "\"b\""],
                                             requestTime: at(499), responseTime: at(500))
        #expect(merged.headers == ["cache-control": "max-age=600", "etag": "\"b\"", "last-modified": Self.lastModified,
                                   "content-type": "image/jpeg"])
        #expect(merged.requestTime == at(499).timeIntervalSince1970 && merged.responseTime == at(500).timeIntervalSince1970)
        #expect(merged.original == stale.original, "what was stored of the body stays")
        // The corrected initial age is the 1 s the revalidation took: fresh until 599 s after that response.
        #expect(describe(Self.privateCache.decide(merged, policy: .normal, now: at(510))) == "serve until +1099")
    }

    @Test func aDataCacheRecordIsJudgedAlikeWithItsUnstatedLifetime() {
        let fresh = record(["cache-control": "max-age=100"])
        #expect(describe(Self.privateCache.decide(fresh, policy: .normal, now: at(10))) == "serve until +100")

        let unstated = record(["etag": "\"a\""])
        #expect(describe(Self.privateCache.decide(unstated, policy: .normal, now: at(10))) == "conditional If-None-Match: \"a\"")
        let minute = CacheStrategy(role: .privateCache, staleIfError: .seconds(30), lifetimeWhenUnstated: .seconds(60))
        #expect(describe(minute.decide(unstated, policy: .normal, now: at(10))) == "serve until +60")
        #expect(describe(minute.decide(unstated, policy: .normal, now: at(90))) == "conditional If-None-Match: \"a\"")
        // Stale-if-error counts from the freshness the origin stated (none), not from the unstated lifetime.
        let down = PipelineError.network(url: "http://127.0.0.1/data", reason: "connection refused")
        #expect(minute.staleServe(unstated, after: down, policy: .normal, now: at(20)) != nil)
        #expect(minute.staleServe(unstated, after: down, policy: .normal, now: at(40)) == nil)
        // An unstated lifetime of forever is as far as a Date goes, not an overflow.
        let forever = CacheStrategy(role: .privateCache, staleIfError: nil, lifetimeWhenUnstated: .seconds(Int64.max))
        #expect(forever.freshUntil(unstated, now: at(10)) == Date.distantFuture)
        // no-cache is asked on every use, whatever lifetime stands in.
        #expect(minute.freshUntil(record(["cache-control": "no-cache"]), now: at(10)) == at(10))
    }

    @Test func storedRecordsKeepTheirOnDiskFields() throws {
        // Both records are `StoredResponse`s in memory; on disk each stays the flat JSON earlier versions wrote.
        let recordKeys = try #require(JSONSerialization.jsonObject(with: record([:]).encoded()) as? [String: Any]).keys
        #expect(Set(recordKeys) == ["version", "key", "url", "headers", "requestTime", "responseTime", "bytes"])
        let metadataKeys = try #require(JSONSerialization.jsonObject(with: metadata([:]).encoded()) as? [String: Any]).keys
        #expect(Set(metadataKeys) == ["version", "url", "headers", "requestTime", "responseTime", "original", "thumbnails"])
    }
}
