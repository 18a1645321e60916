import Foundation
import SeededRandom
import Testing
@testable import ThumbcacheKit

/// Header values are input: no value of `Date`, `Expires`, `Last-Modified`, `Age`, `Cache-Control` or a stored
/// metadata time may trap, and every result stays finite. (A trap would kill this process; the same inputs are
/// also run through the `thumbcache` executable in `HTTPHardeningCLITests`.)
@Suite struct HeaderParsingTests {
    static let absurdDate = "Sun, 06 Nov 999999999999 08:49:37 GMT"

    @Test func absurdYearsAreInvalidDates() {
        #expect(HTTPDate.parse(Self.absurdDate) == nil)
        #expect(HTTPDate.parse("Sunday, 06-Nov-999999999999 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 9223372036854775807") == nil)
        #expect(HTTPDate.parse("Sun, 99999999999999999999 Nov 1994 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 99999999999999999999:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 -1:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Fri, 31 Dec 9999 23:59:59 GMT") == HTTPDate.latest)
        #expect(HTTPDate.parse("Mon, 01 Jan 0001 00:00:00 GMT") == HTTPDate.earliest)
    }

    @Test func everyDateFormatsEvenOutOfRange() {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: .infinity)) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -.infinity)) == "Mon, 01 Jan 0001 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: .nan)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 1.7e308)) == "Fri, 31 Dec 9999 23:59:59 GMT")
    }

    @Test func formatIsIMFFixdateAndParsesBack() {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT", "RFC 9110 §5.6.7")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 GMT")
        var seconds: Int64 = -62_135_596_800  // 0001-01-01
        while seconds < 253_402_300_799 {  // 9999-12-31
            let text = HTTPDate.format(Date(timeIntervalSince1970: TimeInterval(seconds)))
            #expect(text.utf8.count == 29 && HTTPDate.parse(text)?.timeIntervalSince1970 == TimeInterval(seconds), "\(seconds): \(text)")
            seconds += 9_876_543_211
        }
    }

    /// IMF-fixdate has a fast path: it must read every such date as the general parser reads the same date in
    /// the other forms, and leave what it refuses to that parser.
    @Test func theFixdateFastPathAgreesWithTheGeneralParser() {
        var random = SplitMix64(seed: 7)
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        for _ in 0..<2000 {
            let (day, month) = (Int(random.next() % 33), months[Int(random.next() % 12)])
            let (hour, minute, second) = (Int(random.next() % 25), Int(random.next() % 61), Int(random.next() % 62))
            let year = 1 + Int(random.next() % 9999)
            let yearText = String(repeating: "0", count: 4 - "\(year)".count) + "\(year)"
            let fixdate = "Sun, \(two(day)) \(month) \(yearText) \(two(hour)):\(two(minute)):\(two(second)) GMT"
            let asctime = "Sun \(month) \(day < 10 ? " " : "")\(day) \(two(hour)):\(two(minute)):\(two(second)) \(yearText)"
            #expect(HTTPDate.parse(fixdate) == HTTPDate.parse(asctime), "\(fixdate) / \(asctime)")
            #expect(HTTPDate.parse(fixdate.uppercased()) == HTTPDate.parse(fixdate), "month names in any case")
        }
        // Other shapes go to the general parser: another zone name, one space too many, a one-digit day.
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 UTC") == HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT"))
        #expect(HTTPDate.parse("Sun,  06 Nov 1994 08:49:37 GMT")?.timeIntervalSince1970 == 784_111_777)
        #expect(HTTPDate.parse("Sun, 6 Nov 1994 08:49:37 GMT")?.timeIntervalSince1970 == 784_111_777)
    }

    @Test func numbersAreDigitsAndSaturate() {
        #expect(HTTPInteger.parse("123") == 123)
        #expect(HTTPInteger.parse("99999999999999999999999999") == .max)
        #expect(HTTPInteger.deltaSeconds("99999999999999999999999999") == 2_147_483_648)
        for invalid in ["", "1e400", "-5", "+5", " 5", "5 ", "0x10", "inf", "nan", "١٢"] {
            #expect(HTTPInteger.parse(invalid) == nil, "\(invalid)")
        }
        #expect(CacheControl(parsing: ["max-age=99999999999999999999"]).maxAge == 2_147_483_648, "RFC 9111 §1.2.2")
        #expect(CacheControl(parsing: ["max-age=1e400"]).maxAge == 0, "malformed: stale")
        #expect(CacheControl(parsing: ["stale-if-error=1e400"]).staleIfError == nil)
        #expect(CacheControl(parsing: ["=", "=max-age", "max-age=", ",,="]).maxAge == 0)
    }

    func metadata(_ headers: [String: String], requestTime: Double = Date().timeIntervalSince1970,
                  responseTime: Double = Date().timeIntervalSince1970) -> CacheMetadata {
        var metadata = CacheMetadata(url: "http://x/a.jpg", headers: headers, requestTime: Date(), responseTime: Date(),
                                     original: .init(format: "jpeg", width: 1, height: 1, bytes: 1, digest: "d"))
        (metadata.requestTime, metadata.responseTime) = (requestTime, responseTime)
        return metadata
    }

    static func isSane(_ freshness: Freshness) -> Bool {
        freshness.age.isFinite && freshness.lifetime.isFinite && freshness.age >= 0 && freshness.lifetime >= 0
            && Int(exactly: freshness.remaining.rounded()) != nil
    }

    @Test func absurdHeadersAndStoredTimesGiveFiniteFreshness() {
        // RFC 9111 §5.1: an Age that is not delta-seconds is ignored; a huge one counts as 2^31 s.
        let notAnAge = Freshness(metadata: metadata(["cache-control": "max-age=60", "age": "1e400"]), now: Date())
        #expect(Self.isSane(notAnAge) && notAnAge.isFresh)
        let hugeAge = Freshness(metadata: metadata(["cache-control": "max-age=60", "age": "99999999999999999999"]), now: Date())
        #expect(Self.isSane(hugeAge) && !hugeAge.isFresh && hugeAge.age >= 2_147_483_648)
        // An invalid Expires means already expired (RFC 9111 §5.3), however it is invalid.
        let expires = Freshness(metadata: metadata(["date": Self.absurdDate, "expires": Self.absurdDate]), now: Date())
        #expect(Self.isSane(expires) && !expires.isFresh && expires.source == "expires")
        let heuristic = Freshness(metadata: metadata(["last-modified": Self.absurdDate]), now: Date())
        #expect(Self.isSane(heuristic) && heuristic.source == "none")
        for (request, response) in [(Double.nan, Double.nan), (.infinity, -.infinity), (-1.7e308, 1.7e308), (1.7e308, -1.7e308)] {
            let stored = Freshness(metadata: metadata(["cache-control": "max-age=60", "date": "Sun, 06 Nov 1994 08:49:37 GMT"],
                                                      requestTime: request, responseTime: response), now: Date())
            #expect(Self.isSane(stored), "\(request) \(response)")
        }
        #expect(Self.isSane(Freshness(metadata: metadata([:]), now: Date(timeIntervalSince1970: .infinity))))
    }

    /// Random and absurd values for every field, seeded so a failure replays.
    @Test func fuzzedHeadersNeverTrapAndStayFinite() {
        var random = SplitMix64(seed: 0x7C5_1A)
        let tokens = ["Sun,", "Sunday,", "Nov", "nov", "NOV", "Xyz", "06", "6", "31", "32", "0", "1994", "94", "0001", "9999",
                      "10000", "999999999999", "99999999999999999999999", "-1", "08:49:37", "23:59:60", "99:99:99", "1:2",
                      "1:2:3:4", "::", "-:-:-", "06-Nov-94", "06-Nov-999999999999", "-Nov-", "GMT", "", ",", "\t", "1e400"]
        let numbers = ["0", "60", "-1", "1e400", "inf", "nan", "99999999999999999999", "9223372036854775807",
                       "9223372036854775808", "2147483648", "\"60\"", " 60", "0x3c", ""]
        func pick(_ list: [String]) -> String { list[Int(random.next() % UInt64(list.count))] }
        func randomText() -> String {
            let length = Int(random.next() % 24)
            return String(decoding: (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next() % 96 + 32) }, as: UTF8.self)
        }
        func date() -> String {
            random.next() % 4 == 0 ? randomText() : (0..<Int(random.next() % 7)).map { _ in pick(tokens) }.joined(separator: " ")
        }
        let times: [Double] = [0, -1, 1e9, 1.7e308, -1.7e308, .infinity, -.infinity, .nan, Date().timeIntervalSince1970]
        for _ in 0..<20_000 {
            let text = date()
            if let parsed = HTTPDate.parse(text) {
                #expect(parsed >= HTTPDate.earliest && parsed <= HTTPDate.latest, "\(text)")
                #expect(HTTPDate.parse(HTTPDate.format(parsed)) == parsed, "\(text)")
            }
            let seconds = random.next() % 3 == 0 ? times[Int(random.next() % UInt64(times.count))]
                : Double(bitPattern: random.next())
            #expect(HTTPDate.parse(HTTPDate.format(Date(timeIntervalSince1970: seconds))) != nil, "\(seconds)")
            let control = "\(pick(["max-age", "stale-if-error", "no-cache", "", "="]))=\(pick(numbers)), \(randomText())"
            let headers = ["date": date(), "expires": date(), "last-modified": date(), "age": pick(numbers), "cache-control": control]
            let freshness = Freshness(metadata: metadata(headers, requestTime: times[Int(random.next() % UInt64(times.count))],
                                                         responseTime: times[Int(random.next() % UInt64(times.count))]),
                                      now: Date(timeIntervalSince1970: times[Int(random.next() % UInt64(times.count))]))
            #expect(Self.isSane(freshness), "\(headers)")
            _ = StaleIfError(clientAllowance: 60).serve(metadata(headers), after: .network(url: "http://x/", reason: "down"), now: Date())
            _ = HTTPInteger.parse(randomText())
        }
    }
}
