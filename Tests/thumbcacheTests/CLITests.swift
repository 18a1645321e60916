import BombTestSupport
import DiskLru
import Foundation
import NIOCore
import OriginTestSupport
import Testing
@testable import ThumbcacheKit

/// The `thumbcache` executable as a user runs it: separate processes, exit codes, the directory lock.
@Suite(.serialized) struct CLITests {
    typealias Run = ThumbcacheChild.Run

    static var executable: URL { ThumbcacheChild.executable }

    static func launch(_ arguments: [String], fileSizeLimit: Int? = nil) throws -> (Process, Pipe, Pipe) {
        try ThumbcacheChild.launch(arguments, fileSizeLimit: fileSizeLimit)
    }

    static func finish(_ launched: (Process, Pipe, Pipe)) -> Run { ThumbcacheChild.finish(launched) }

    static func run(_ arguments: [String], fileSizeLimit: Int? = nil) throws -> Run {
        try ThumbcacheChild.run(arguments, fileSizeLimit: fileSizeLimit)
    }

    let server: OriginServer
    let cacheDir: String

    init() throws {
        server = try OriginServer()
        cacheDir = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-cli-\(UUID().uuidString)").path
    }

    func cleanUp() {
        server.shutdown()
        try? FileManager.default.removeItem(atPath: cacheDir)
    }

    @Test func exitCodesAreDistinctAndDocumented() throws {
        server.route("/page.html") { _ in .respond(status: 200, headers: [("Content-Type", "text/html")], body: Data("<html>".utf8)) }
        server.route("/ok.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=60")], body: Fixtures.jpeg) }
        let get = { (url: String, extra: [String]) in try Self.run(["get", url, "--size", "64", "--cache-dir", cacheDir, "-o", "-"] + extra) }
        let ok = try get(server.url("/ok.jpg"), ["--json"])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.prefix(3) == Data([0xFF, 0xD8, 0xFF]), "-o - writes the JPEG to stdout")
        #expect(ok.stderr.contains("\"servedFrom\":\"network\""), "--json goes to stderr when the image is on stdout")
        #expect(try get(server.url("/ok.jpg"), []).stderr.contains("[disk]"))
        #expect(try get(server.url("/missing.jpg"), []).status == 4)
        let html = try get(server.url("/page.html"), [])
        #expect(html.status == 5 && html.stderr.contains("is not an image in a format thumbcache knows"))
        #expect(try get("http://127.0.0.1:1/x.jpg", []).status == 3)
        #expect(try get(server.url("/other.jpg"), ["--offline"]).status == 7)
        #expect(try get(server.url("/ok.jpg"), ["--size", "0"]).status == 64)
        #expect(try get("ftp://x/y.jpg", []).status == 64)
        let stats = try Self.run(["stats", "--cache-dir", cacheDir, "--json"])
        let json = try JSONSerialization.jsonObject(with: stats.stdout) as? [String: Any]
        #expect(json?["entries"] as? Int == 1)
        #expect(json?["misses"] as? Int == 1 && json?["diskHits"] as? Int == 1)
        // The plain form in the size options' units (ByteCountTests covers the spelling).
        let plain = String(decoding: try Self.run(["stats", "--cache-dir", cacheDir]).stdout, as: UTF8.self)
        #expect(plain.contains(try Regex("\nbytes: +[0-9]+(\\.[0-9])?(B|KiB|MiB) of 512MiB\n")), "\(plain)")
        #expect(try Self.run(["clear", "--cache-dir", cacheDir]).status == 0)
        #expect(try Self.run(["info", server.url("/ok.jpg"), "--cache-dir", cacheDir]).status == 7)
        cleanUp()
    }

    @Test func staleIfErrorServesWithAWarning() throws {
        let down = Locked(false)
        server.route("/s.jpg") { _ in
            down.withLock { $0 } ? .respond(status: 502, headers: [], body: Data())
                : .respond(status: 200, headers: [("Cache-Control", "max-age=0")], body: Fixtures.jpeg)
        }
        let get = { (extra: [String]) in
            try Self.run(["get", server.url("/s.jpg"), "--size", "64", "--cache-dir", cacheDir, "-o", "/dev/null"] + extra)
        }
        #expect(try get([]).status == 0)
        down.withLock { $0 = true }
        let failed = try get([])
        #expect(failed.status == 4 && failed.stderr.contains("HTTP 502"), "\(failed.stderr)")
        let stale = try get(["--stale-if-error", "3600", "--json"])
        #expect(stale.status == 0, "\(stale.stderr)")
        #expect(stale.stderr.contains("s past fresh because the origin failed: "), "\(stale.stderr)")
        let json = try JSONSerialization.jsonObject(with: stale.stdout) as? [String: Any]
        #expect(json?["servedFrom"] as? String == "stale")
        #expect((json?["staleBecause"] as? String)?.contains("HTTP 502") == true)
        #expect(try get(["--stale-if-error", "-1"]).status == 64)
        let stats = try JSONSerialization.jsonObject(with: try Self.run(["stats", "--cache-dir", cacheDir, "--json"]).stdout) as? [String: Any]
        #expect(stats?["staleServed"] as? Int == 1 && stats?["failures"] as? Int == 1)
        cleanUp()
    }

    @Test func caFileTrustsAPrivateHTTPSOrigin() throws {
        let origin = try OriginServer(tls: true)
        origin.route("/t.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=60")], body: Fixtures.jpeg) }
        let get = { (extra: [String]) in
            try Self.run(["get", origin.url("/t.jpg"), "--size", "64", "--cache-dir", cacheDir, "-o", "/dev/null"] + extra)
        }
        let untrusted = try get([])
        #expect(untrusted.status == 3 && untrusted.stderr.contains("pass --ca-file"), "\(untrusted.stderr)")
        let trusted = try get(["--ca-file", OriginServer.caFile])
        #expect(trusted.status == 0 && trusted.stderr.contains("[network]"), "\(trusted.stderr)")
        let missing = try get(["--ca-file", cacheDir + "/none.pem"])
        #expect(missing.status == 64 && missing.stderr.contains("cannot trust"), "\(missing.stderr)")
        let list = cacheDir + "-urls.txt"
        try origin.url("/t.jpg").write(toFile: list, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: list) }
        let warm = try Self.run(["warm", list, "--sizes", "64", "--cache-dir", cacheDir, "--quiet", "--ca-file", OriginServer.caFile])
        #expect(warm.status == 0 && warm.stderr.contains("1 already fresh"), "\(warm.stderr)")
        origin.shutdown()
        cleanUp()
    }

    @Test func twoProcessesOnOneDirectoryBothSucceed() throws {
        server.route("/slow.jpg") { _ in .trickle(body: Fixtures.jpeg, chunk: 600, delay: .milliseconds(60)) }
        let url = server.url("/slow.jpg")
        let first = try Self.launch(["get", url, "--size", "64", "--cache-dir", cacheDir, "-o", cacheDir + "-a.jpg"])
        // The first is downloading, without holding the directory (SharedCacheTests): its request, not a sleep.
        while server.requestCount("/slow.jpg") == 0 && first.0.isRunning { usleep(10_000) }
        let second = Self.finish(try Self.launch(["get", url, "--size", "64", "--cache-dir", cacheDir, "-o", cacheDir + "-b.jpg"]))
        let firstRun = Self.finish(first)
        #expect(firstRun.status == 0, "\(firstRun.stderr)")
        #expect(second.status == 0, "\(second.stderr)")
        #expect((1...2).contains(server.requestCount("/slow.jpg")), "each process fetches at most once")
        let third = try Self.run(["get", url, "--size", "64", "--cache-dir", cacheDir, "-o", "/dev/null"])
        #expect(third.stderr.contains("[disk]"), "one entry, stored whole: \(third.stderr)")
        try? FileManager.default.removeItem(atPath: cacheDir + "-a.jpg")
        try? FileManager.default.removeItem(atPath: cacheDir + "-b.jpg")
        cleanUp()
    }

    @Test func killedMidGetLeavesACacheThatReopensClean() async throws {
        server.route("/fast.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=600")], body: Fixtures.png) }
        server.route("/slow.jpg") { _ in .trickle(body: Fixtures.jpeg, chunk: 300, delay: .milliseconds(40)) }
        #expect(try Self.run(["get", server.url("/fast.jpg"), "--size", "64", "--cache-dir", cacheDir, "-o", "/dev/null"]).status == 0)
        for delay in [100_000, 300_000, 500_000] as [UInt32] {
            let (process, _, _) = try Self.launch(["get", server.url("/slow.jpg"), "--size", "256", "--cache-dir", cacheDir, "-o", "/dev/null"])
            usleep(delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let cache = try DiskLruCache(directory: URL(fileURLWithPath: cacheDir).appendingPathComponent("entries"),
                                     appVersion: EntryStore.appVersion, valueCount: SizeLadder.standard.valueCount, maxSize: 1 << 30)
        #expect(cache.recoveredCorruption == nil)
        #expect(cache.keys().count == 1, "the earlier entry survives; the killed gets stored nothing half-done")
        try cache.close()
        let again = try Self.run(["get", server.url("/fast.jpg"), "--size", "64", "--cache-dir", cacheDir, "-o", "/dev/null"])
        #expect(again.status == 0 && again.stderr.contains("[disk]"), "\(again.stderr)")
        let slow = try Self.run(["get", server.url("/slow.jpg"), "--size", "256", "--cache-dir", cacheDir, "-o", "/dev/null"])
        #expect(slow.status == 0 && slow.stderr.contains("[network]"), "\(slow.stderr)")
        cleanUp()
    }
}
