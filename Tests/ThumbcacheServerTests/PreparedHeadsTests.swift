import Foundation
import ImageDecode
import NIOCore
import Testing
@testable import ThumbcacheKit
@testable import ThumbcacheServer

/// `PreparedHeads` keeps a memory hit's serialised head for one second and for one set of facts: a new second, or
/// anything about the thumbnail that its answer shows (a new digest after a purge, a new freshness), makes it anew.
@Suite struct PreparedHeadsTests {
    static func result(digest: String = "ab12", format: ImageFormat = .jpeg, freshFor seconds: TimeInterval = 600) -> ThumbnailResult {
        var result = ThumbnailResult(data: Data(repeating: 1, count: 10), format: format, width: 4, height: 3,
                                     servedFrom: .memory, source: "http://127.0.0.1/a.jpg", cacheKey: "k",
                                     bytesDownloaded: 0, rendered: false)
        (result.contentDigest, result.freshUntil) = (digest, Date(timeIntervalSince1970: 1_000_000 + seconds))
        return result
    }

    static func facts(_ result: ThumbnailResult, negotiated: Bool = false) throws -> PreparedHeads.Facts {
        try #require(PreparedHeads.Facts(result, variation: negotiated ? .accept : [], serverName: "thumbcache"))
    }

    /// A head whose bytes say which call made it.
    final class Maker: @unchecked Sendable {
        var made = 0
        func make(_ facts: PreparedHeads.Facts, second: Int) -> PreparedHeads.Head {
            made += 1
            return PreparedHeads.Head(facts: facts, second: second, beforeTiming: ByteBuffer(string: "head \(made)\r\n"),
                                      afterTiming: ByteBuffer(string: "\r\n"), contentLength: "10")
        }
    }

    @Test func aHeadServesItsSecondAndFactsOnly() throws {
        let heads = PreparedHeads(), maker = Maker()
        let facts = try Self.facts(Self.result())
        let first = heads.head(for: facts, second: 100) { maker.make(facts, second: 100) }
        let again = heads.head(for: facts, second: 100) { maker.make(facts, second: 100) }
        #expect(maker.made == 1 && first?.beforeTiming == again?.beforeTiming)
        _ = heads.head(for: facts, second: 101) { maker.make(facts, second: 101) }
        #expect(maker.made == 2, "a new second: Date and max-age change")
        let purged = try Self.facts(Self.result(digest: "cd34"))
        let fresh = heads.head(for: purged, second: 101) { maker.make(purged, second: 101) }
        #expect(maker.made == 3 && fresh?.beforeTiming == ByteBuffer(string: "head 3\r\n"), "new bytes: a new ETag")
        let longer = try Self.facts(Self.result(digest: "cd34", freshFor: 900))
        _ = heads.head(for: longer, second: 101) { maker.make(longer, second: 101) }
        #expect(maker.made == 4, "revalidated: a new max-age")
    }

    @Test func nothingIsKeptWhenNoHeadCanBeMade() throws {
        let heads = PreparedHeads(), maker = Maker()
        let facts = try Self.facts(Self.result())
        #expect(heads.head(for: facts, second: 5) { nil } == nil)
        _ = heads.head(for: facts, second: 5) { maker.make(facts, second: 5) }
        #expect(maker.made == 1)
    }

    /// Negotiation gives one path several formats, and memory and disk hits alternate for a thumbnail that does not
    /// stay in memory: the last four ways kept, each replaced by its own newer head.
    @Test func fourWaysOfAnsweringAreKept() throws {
        let heads = PreparedHeads(), maker = Maker()
        func facts(_ format: ImageFormat, _ served: ServedFrom) throws -> PreparedHeads.Facts {
            var result = Self.result(digest: format.rawValue, format: format)
            result.servedFrom = served
            return try Self.facts(result, negotiated: true)
        }
        let ways = try [facts(.jpeg, .memory), facts(.jpeg, .disk), facts(.webp, .memory), facts(.webp, .disk)]
        for facts in ways + ways { _ = heads.head(for: facts, second: 7) { maker.make(facts, second: 7) } }
        #expect(maker.made == 4)
        let avif = try facts(.avif, .memory)
        _ = heads.head(for: avif, second: 7) { maker.make(avif, second: 7) }
        for facts in ways.dropFirst() { _ = heads.head(for: facts, second: 7) { maker.make(facts, second: 7) } }
        #expect(maker.made == 5, "the three newer ways were kept")
        _ = heads.head(for: ways[0], second: 7) { maker.make(ways[0], second: 7) }
        #expect(maker.made == 6, "the oldest made way for avif")
    }

    @Test func aThumbnailWithoutItsDigestIsNotPrepared() {
        var result = Self.result()
        result.contentDigest = nil
        #expect(PreparedHeads.Facts(result, variation: [], serverName: nil) == nil)
    }

    /// `max-age` counts from the whole second the answer is dated: it does not change within a second.
    @Test func maxAgeCountsFromTheDatedSecond() {
        let responder = ThumbnailResponder(minTTL: 0, maxTTL: 86_400)
        var result = Self.result(freshFor: 600)
        result.freshUntil = result.freshUntil!.addingTimeInterval(0.75)
        #expect(responder.maxAge(result, second: 1_000_000) == 600)
        #expect(responder.maxAge(result, second: 1_000_001) == 599)
        #expect(responder.cacheControl(result, second: 1_000_100) == "public, max-age=500")
    }
}
