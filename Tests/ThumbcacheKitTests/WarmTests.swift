import DiskLru
import BombTestSupport
import Foundation
import NIOCore
import OriginTestSupport
import Testing
@testable import ThumbcacheKit

/// `thumbcache warm` end to end: report, progress, failures, duplicates, SIGINT and re-run.
@Suite(.serialized) struct WarmTests {
    let server: OriginServer
    let work: URL

    init() throws {
        server = try OriginServer()
        work = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-warm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    func cleanUp() {
        server.shutdown()
        try? FileManager.default.removeItem(at: work)
    }

    func list(_ lines: [String]) throws -> String {
        let path = work.appendingPathComponent("urls-\(UUID().uuidString).txt").path
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func report(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any] ?? [:]
    }

    @Test func parseListSkipsCommentsBlanksAndRepeats() {
        #expect(CacheWarmer.parseList("a\n\n# note\n  b  \na\r\nc\n") == ["a", "b", "c"])
        // A Windows editor's list: a byte-order mark and CRLF line ends are not part of any URL.
        #expect(CacheWarmer.parseList("\u{FEFF}http://127.0.0.1/a.jpg\r\n# c\r\n\r\nhttp://127.0.0.1/b.jpg\r\n")
                == ["http://127.0.0.1/a.jpg", "http://127.0.0.1/b.jpg"])
        #expect(CacheWarmer.parseList("\u{FEFF}") == [] && CacheWarmer.parseList("") == [] && CacheWarmer.parseList("x") == ["x"])
    }

    @Test func aStaleCopyServedOnOriginErrorCountsAsAFailure() throws {
        let down = Locked(false)
        server.route("/s.jpg") { _ in
            down.withLock { $0 } ? .respond(status: 503, headers: [], body: Data())
                : .respond(status: 200, headers: [("Cache-Control", "max-age=0, stale-if-error=3600")], body: Fixtures.jpeg)
        }
        let urls = try list([server.url("/s.jpg")])
        let cacheDir = work.appendingPathComponent("cache").path
        let jsonPath = work.appendingPathComponent("report.json").path
        let warm = { try ThumbcacheChild.run(["warm", urls, "--sizes", "64", "--cache-dir", cacheDir, "--json", jsonPath, "--quiet"]) }
        #expect(try warm().status == 0)
        down.withLock { $0 = true }
        let second = try warm()
        #expect(second.status == 1, "the origin's stale-if-error keeps the copy, but warming did not refresh it")
        let reasons = (try report(jsonPath)["failed"] as? [[String: String]] ?? []).map { $0["reason"] ?? "" }
        #expect(reasons.count == 1 && reasons[0].hasPrefix("stale copy kept: ") && reasons[0].contains("HTTP 503"), "\(reasons)")
        cleanUp()
    }

    @Test func reportCountsEveryOutcomeAndRerunSkipsFreshEntries() throws {
        for i in 0..<6 {
            server.route("/img\(i).jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=600"), ("ETag", "\"\(i)\"")], body: Fixtures.jpeg) }
        }
        server.route("/page.html") { _ in .respond(status: 200, headers: [], body: Data("<html></html>".utf8)) }
        let good = (0..<6).map { server.url("/img\($0).jpg") }
        let urls = try list(["# thumbnails for the home page", ""] + good + [good[0], server.url("/missing.jpg"), server.url("/page.html")])
        let cacheDir = work.appendingPathComponent("cache").path
        let jsonPath = work.appendingPathComponent("report.json").path

        let first = try ThumbcacheChild.run(["warm", urls, "--sizes", "64,128", "--concurrency", "3", "--cache-dir", cacheDir, "--json", jsonPath, "--quiet"])
        #expect(first.status == 1, "a failed URL makes the exit code non-zero: \(first.stderr)")
        let firstReport = try report(jsonPath)
        #expect(firstReport["total"] as? Int == 8)
        #expect(firstReport["fetched"] as? Int == 6)
        #expect((firstReport["failed"] as? [[String: Any]])?.count == 2)
        let reasons = (firstReport["failed"] as? [[String: String]] ?? []).map { $0["reason"] ?? "" }
        #expect(reasons.contains { $0.contains("HTTP 404") } && reasons.contains { $0.contains("is not an image in a format thumbcache knows") })
        #expect((firstReport["bytesDownloaded"] as? Int) == 6 * Fixtures.jpeg.count)
        #expect((firstReport["bytesStored"] as? Int ?? 0) > 6 * Fixtures.jpeg.count)
        #expect(server.requestCount("/img0.jpg") == 1, "a repeated URL is fetched once")
        #expect(first.stderr.contains("6 fetched, 0 already fresh, 0 revalidated, 2 failed"), "\(first.stderr)")
        #expect(!first.stderr.contains("warming"), "--quiet prints no progress")

        let rerun = try ThumbcacheChild.run(["warm", try list(good), "--sizes", "64,128", "--cache-dir", cacheDir, "--json", jsonPath])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(try report(jsonPath)["fresh"] as? Int == 6)
        #expect((0..<6).allSatisfy { server.requestCount("/img\($0).jpg") == 1 }, "nothing fresh is fetched again")
        cleanUp()
    }

    @Test func progressLinesWhenNotATerminal() throws {
        for i in 0..<4 {
            server.route("/slow\(i).jpg") { _ in .trickle(body: Fixtures.jpeg, chunk: 2000, delay: .milliseconds(50)) }
        }
        let urls = try list((0..<4).map { server.url("/slow\($0).jpg") })
        let run = try ThumbcacheChild.run(["warm", urls, "--sizes", "64", "--concurrency", "1", "--progress-interval", "0.05",
                                    "--cache-dir", work.appendingPathComponent("cache").path])
        #expect(run.status == 0, "\(run.stderr)")
        let progress = run.stderr.split(separator: "\n").filter { $0.contains("warming ") }
        #expect(progress.count >= 2, "a plain progress line every interval: \(run.stderr)")
        #expect(progress.last?.contains("URLs/s") == true && progress.last?.contains("ETA") == true)
        #expect(run.stderr.contains("4 fetched"))
        cleanUp()
    }

    @Test func sigintStopsCleanlyAndRerunFinishes() throws {
        // Past the first two, each download is held until the re-run: SIGINT lands part-way however slow the
        // machine (with every URL a 240 ms trickle, a stalled test process could see the run finish first).
        for i in 0..<10 {
            server.route("/s\(i).jpg") { _ in
                i < 2 ? .trickle(body: Fixtures.jpeg, chunk: 1000, delay: .milliseconds(40)) : .held(body: Fixtures.jpeg, until: "rerun")
            }
        }
        let urls = try list((0..<10).map { server.url("/s\($0).jpg") })
        let cacheDir = work.appendingPathComponent("cache").path
        let jsonPath = work.appendingPathComponent("report.json").path
        let launched = try ThumbcacheChild.launch(["warm", urls, "--sizes", "64,128", "--concurrency", "2", "--cache-dir", cacheDir, "--json", jsonPath])
        // With two URLs in flight, a third is requested only once one is done: then SIGINT lands part-way.
        let deadline = ContinuousClock.now + .seconds(600)
        while server.totalRequests < 3 && ContinuousClock.now < deadline { usleep(10_000) }
        kill(launched.0.processIdentifier, SIGINT)
        let interrupted = ThumbcacheChild.finish(launched)
        #expect(interrupted.status == 130, "\(interrupted.stderr)")
        #expect(interrupted.stderr.contains("interrupted by SIGINT"), "\(interrupted.stderr)")
        let partial = try report(jsonPath)
        #expect(partial["interrupted"] as? Bool == true)
        let done = partial["fetched"] as? Int ?? -1
        #expect(done > 0 && done < 10, "stopped part-way: \(done)")

        // A URL interrupted between its sizes keeps the sizes already made: a complete entry, not a
        // half-written one. So the cache holds at least the finished URLs, each a readable entry.
        let entries = URL(fileURLWithPath: cacheDir).appendingPathComponent("entries")
        let cache = try DiskLruCache.openReadOnly(directory: entries, appVersion: EntryStore.appVersion,
                                                  valueCount: SizeLadder.standard.valueCount)
        #expect(cache.recoveredCorruption == nil)
        let keys = cache.keys()
        #expect(keys.count >= done && keys.count <= done + 2, "finished URLs, plus at most the two in flight: \(keys.count)")
        for key in keys {
            let snapshot = try #require(try cache.snapshot(forKey: key))
            #expect(CacheMetadata.decode(try snapshot.data(at: EntryStore.metadataIndex)) != nil)
            snapshot.close()
        }
        try cache.close()

        server.release("rerun")
        let rerun = try ThumbcacheChild.run(["warm", urls, "--sizes", "64,128", "--cache-dir", cacheDir, "--json", jsonPath, "--quiet"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let final = try report(jsonPath)
        let fresh = final["fresh"] as? Int ?? -1, fetched = final["fetched"] as? Int ?? -1
        #expect(fresh == keys.count && fetched == 10 - keys.count, "the re-run fetches only what is not cached: \(final)")
        #expect((0..<10).allSatisfy { server.requestCount("/s\($0).jpg") >= 1 })
        // Every URL now has both sizes, the interrupted ones included.
        let after = try DiskLruCache.openReadOnly(directory: entries, appVersion: EntryStore.appVersion,
                                                  valueCount: SizeLadder.standard.valueCount)
        #expect(after.keys().count == 10)
        for key in after.keys() {
            let snapshot = try #require(try after.snapshot(forKey: key))
            let metadata = try #require(CacheMetadata.decode(try snapshot.data(at: EntryStore.metadataIndex)))
            #expect(metadata.thumbnailSizes == [64, 128], "\(key): \(metadata.thumbnailSizes)")
            snapshot.close()
        }
        cleanUp()
    }
}
