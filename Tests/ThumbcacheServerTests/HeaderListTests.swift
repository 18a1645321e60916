import Foundation
import HTTPTypes
import ImageDecode
import Testing
@testable import ThumbcacheServer

/// Header lists (`Accept`, `If-None-Match`, `Connection`) are read in one pass within `HeaderList`'s bounds: a
/// client's 80 KB list costs what a short one does. The work is shown bounded by counting the elements examined
/// and by answers that ignore what lies past the bounds, never by timing.
struct HeaderListTests {
    static let filler = Array(repeating: "text/x-filler", count: 100_000).joined(separator: ",")

    @Test func elementsAreTrimmedAndEmptyOnesSkipped() {
        var seen: [Substring] = []
        let scan = HeaderList.scan(" a ,\tb,, ,c\t") { seen.append($0); return true }
        #expect(seen == ["a", "b", "c"] && scan == .complete)
    }

    @Test func aCommaInAQuotedStringDoesNotSplit() {
        var seen: [Substring] = []
        HeaderList.scan(#"W/"a,b", "c\",d", e"#) { seen.append($0); return true }
        #expect(seen == [#"W/"a,b""#, #""c\",d""#, "e"])
    }

    @Test func theVisitorStopsTheScan() {
        var visits = 0
        #expect(HeaderList.scan("a, b, c, d") { visits += 1; return $0 != "b" } == .stopped)
        #expect(visits == 2)
    }

    /// 100,000 elements: exactly `maximumElements` are looked at, and the scan says the rest was not.
    @Test func aLongListIsExaminedOnlyUpToTheElementBound() {
        var visits = 0
        let scan = HeaderList.scan(Self.filler + ",image/avif") { _ in visits += 1; return true }
        #expect(scan == .truncated && visits == HeaderList.maximumElements)
    }

    /// One element longer than the byte bound is not examined at all (a cut element could read differently).
    @Test func anElementCutByTheByteBoundIsNotExamined() {
        var seen: [Substring] = []
        let long = "image/webp, image/avif;x=" + String(repeating: "a", count: HeaderList.maximumBytes)
        #expect(HeaderList.scan(long) { seen.append($0); return true } == .truncated)
        #expect(seen == ["image/webp"])
        let exact = String(repeating: "b", count: HeaderList.maximumBytes)
        #expect(HeaderList.scan(exact) { _ in true } == .complete, "a list of exactly the bound is read whole")
    }

    // MARK: - Accept

    @Test func acceptSeesTheLastElementOfAListWithinTheBound() {
        let within = Array(repeating: "text/html", count: HeaderList.maximumElements - 1) + ["image/webp;q=0.5"]
        #expect(AcceptNegotiation(within.joined(separator: ", ")).accepted([.avif, .webp]).first == .webp)
        #expect(AcceptNegotiation(within.joined(separator: ", ") + ", image/avif;q=0").accepted([.avif, .webp]).first == .webp, "past the bound: ignored")
    }

    /// A list of 100,000 elements answers as its first `maximumElements` do: a type named only beyond the bound
    /// is not seen, and the answer is the default format.
    @Test func acceptOfAHugeListAnswersAsItsTruncatedList() {
        let huge = AcceptNegotiation(Self.filler + ",image/avif")
        let truncated = AcceptNegotiation(Array(repeating: "text/x-filler", count: HeaderList.maximumElements).joined(separator: ","))
        #expect(huge == truncated && huge.accepted([.avif, .webp]).isEmpty && huge.qualities.count == 1)
        #expect(AcceptNegotiation("image/avif;q=0.9," + Self.filler).accepted([.avif, .webp]).first == .avif, "named before the bound: seen")
    }

    @Test func acceptQualitiesAndWildcardsStillCount() {
        #expect(AcceptNegotiation("*/*;q=0.8, image/*, image/webp;q=0").accepted([.avif, .webp]).first == nil)
        #expect(AcceptNegotiation("image/avif;q=0.001, image/webp").accepted([.avif, .webp]).first == .avif)
        #expect(AcceptNegotiation("image/avif;q=\"0.5\"").accepted([.avif, .webp]).first == nil, "a quoted q is not a number: refuses")
    }

    // MARK: - If-None-Match, If-Modified-Since

    static func conditional(_ fields: HTTPFields) -> ConditionalRequest { ConditionalRequest(fields) }

    @Test func ifNoneMatchFindsATagAtTheEndOfAListWithinTheBound() {
        let tags = (1..<HeaderList.maximumElements).map { "\"t\($0)\"" } + ["W/\"abc\""]
        #expect(Self.conditional([.ifNoneMatch: tags.joined(separator: ", ")]).isNotModified(etag: "\"abc\"", lastModified: nil))
        #expect(Self.conditional([.ifNoneMatch: "\"x\", *"]).isNotModified(etag: "\"abc\"", lastModified: nil))
        #expect(!Self.conditional([.ifNoneMatch: "\"ab\", \"abcd\""]).isNotModified(etag: "\"abc\"", lastModified: nil))
    }

    /// Past the bound a tag is not seen: a full answer, always correct.
    @Test func ifNoneMatchPastTheBoundIsAFullAnswer() {
        let tags = Array(repeating: "\"other\"", count: 100_000) + ["\"abc\""]
        #expect(!Self.conditional([.ifNoneMatch: tags.joined(separator: ",")]).isNotModified(etag: "\"abc\"", lastModified: nil))
    }

    @Test func anOverlongIfModifiedSinceIsIgnored() {
        let date = "Tue, 24 Nov 2026 10:00:00 GMT"
        let modified = Date(timeIntervalSince1970: 1_795_514_400)  // that date
        #expect(Self.conditional([.ifModifiedSince: date]).isNotModified(etag: "\"x\"", lastModified: modified))
        let padded = date + String(repeating: " ", count: 80_000) + "GMT"  // a date to a lenient parser
        #expect(Self.conditional([.ifModifiedSince: padded]).ifModifiedSince == nil)
    }

    // MARK: - Connection

    @Test func connectionTokens() {
        #expect(HeaderList.containsToken("keep-alive, Close", "close") == true)
        #expect(HeaderList.containsToken("closed, x-close", "close") == false)
        #expect(HeaderList.containsToken(Self.filler + ", close", "close") == nil, "unread rest: the caller decides")
    }

    /// A `Connection` list too long to read whole might say close further on: the router answers it.
    @Test func aMemoryHitWithAnOverlongConnectionListGoesToTheRouter() async throws {
        try await ServerHarness.withCachedThumbnail { server, path in
            let long = Array(repeating: "x-token", count: 100_000).joined(separator: ", ")
            #expect(server.endpoints.memoryHitAnswer(method: .get, path: path, headers: [.connection: long], serverName: nil) == nil)
            #expect(server.endpoints.memoryHitAnswer(method: .get, path: path, headers: [.connection: "keep-alive"], serverName: nil) != nil)
        }
    }
}
