import DiskLru
import Foundation
import OriginTestSupport
import Testing
@testable import ThumbcacheKit

/// Hostile origins against the `thumbcache` executable: a trap kills the process, so every run here must end
/// with an exit status, never a signal. Each child runs capped at 1 GiB of address space (`CappedProcess`).
@Suite(.serialized) struct HTTPHardeningCLITests {
    let server: OriginServer
    let work: URL

    init() throws {
        server = try OriginServer()
        work = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-hardening-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    func cleanUp() {
        server.shutdown()
        try? FileManager.default.removeItem(at: work)
    }

    var cacheDir: String { work.appendingPathComponent("cache").path }

    /// Runs the executable (under the tests' memory cap, as `CLITests.launch` runs it) and fails the test if it
    /// died of a signal (a trap is SIGILL or SIGTRAP, whose numbers would otherwise pass for exit codes 4 and 5).
    func run(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> CLITests.Run {
        let launched = try CLITests.launch(arguments)
        let result = CLITests.finish(launched)
        #expect(launched.0.terminationReason == .exit, "killed by signal \(result.status): \(arguments) \(result.stderr)",
                sourceLocation: sourceLocation)
        return result
    }

    static let absurdDate = "Sun, 06 Nov 999999999999 08:49:37 GMT"

    @Test func absurdHeaderValuesNeverKillGetInfoOrWarm() throws {
        let cases: [String: [(String, String)]] = [
            "/expires.jpg": [("Date", Self.absurdDate), ("Expires", Self.absurdDate)],
            "/modified.jpg": [("Date", Self.absurdDate), ("Last-Modified", Self.absurdDate)],
            "/rfc850.jpg": [("Date", "Sunday, 06-Nov-999999999999 08:49:37 GMT"), ("Expires", "Sun Nov  6 08:49:37 99999999999999999999")],
            "/age.jpg": [("Age", "1e400"), ("Cache-Control", "max-age=60")],
            "/huge.jpg": [("Age", "99999999999999999999"), ("Cache-Control", "max-age=99999999999999999999, stale-if-error=1e400")],
            "/empty-directive.jpg": [("Cache-Control", "=, =max-age, max-age=")],
        ]
        for (path, headers) in cases {
            server.route(path) { _ in .respond(status: 200, headers: [("Content-Type", "image/jpeg")] + headers, body: Fixtures.jpeg) }
        }
        let urls = cases.keys.sorted().map { server.url($0) }
        for url in urls {
            let get = try run(["get", url, "--size", "64", "--cache-dir", cacheDir, "-o", "/dev/null"])
            #expect(get.status == 0, "\(url): \(get.stderr)")
            let again = try run(["get", url, "--size", "128", "--cache-dir", cacheDir, "-o", "/dev/null"])
            #expect(again.status == 0, "\(url): \(again.stderr)")
            for format in [[], ["--json"]] {
                let info = try run(["info", url, "--cache-dir", cacheDir] + format)
                #expect(info.status == 0, "\(url): \(info.stderr)")
            }
        }
        let list = work.appendingPathComponent("urls.txt")
        try urls.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        let warm = try run(["warm", list.path, "--sizes", "64,256", "--cache-dir", cacheDir, "--quiet"])
        #expect(warm.status == 0, "\(warm.stderr)")
        cleanUp()
    }

    @Test func absurdStoredMetadataNeverKillsInfoOrGet() throws {
        server.route("/ok.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=60")], body: Fixtures.jpeg) }
        let url = server.url("/ok.jpg")
        #expect(try run(["get", url, "--size", "64", "--cache-dir", cacheDir, "-o", "/dev/null"]).status == 0)
        // A metadata file from an older version, or damaged: absurd times and headers.
        let cache = try DiskLruCache(directory: URL(fileURLWithPath: cacheDir).appendingPathComponent("entries"),
                                     appVersion: EntryStore.appVersion, valueCount: SizeLadder.standard.valueCount, maxSize: 1 << 30)
        let key = try ImageSource(url).cacheKey
        let stored = try #require(try cache.snapshot(forKey: key))
        var metadata = try #require(CacheMetadata.decode(try stored.data(at: 0)))
        stored.close()
        metadata.requestTime = 1.7e308
        metadata.responseTime = -1.7e308
        metadata.headers = ["date": Self.absurdDate, "expires": Self.absurdDate, "last-modified": Self.absurdDate,
                            "age": "1e400", "cache-control": "max-age=99999999999999999999999"]
        try cache.setPartialData([0: metadata.encoded()], forKey: key)
        try cache.close()
        for arguments in [["info", url], ["info", url, "--json"], ["get", url, "--size", "64", "-o", "/dev/null", "--offline"],
                          ["get", url, "--size", "64", "-o", "/dev/null"]] {
            let result = try run(arguments + ["--cache-dir", cacheDir])
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        cleanUp()
    }

    @Test func aPortOutOfRangeIsAFailedURLNotADeadProcess() throws {
        server.route("/ok.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=60")], body: Fixtures.jpeg) }
        server.route("/bounce.jpg") { _ in .respond(status: 302, headers: [("Location", "http://localhost:99999/x.jpg")], body: Data()) }
        let list = work.appendingPathComponent("urls.txt")
        let report = work.appendingPathComponent("report.json")
        try ["http://127.0.0.1:99999/x.jpg", "http://localhost:65536/x.jpg", server.url("/bounce.jpg"), server.url("/ok.jpg")]
            .joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        let warm = try run(["warm", list.path, "--sizes", "64", "--cache-dir", cacheDir, "--quiet", "--json", report.path])
        #expect(warm.status == 1, "some URLs failed: \(warm.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        #expect(json["fetched"] as? Int == 1)
        let failed = json["failed"] as? [[String: String]] ?? []
        #expect(failed.count == 3)
        #expect(failed.allSatisfy { $0["reason"]?.contains("is not in 1-65535") == true }, "\(failed)")
        let get = try run(["get", "http://127.0.0.1:99999/x.jpg", "--size", "64", "--cache-dir", cacheDir, "-o", "/dev/null"])
        #expect(get.status == 64 && get.stderr.contains("port 99999 is not in 1-65535"), "\(get.stderr)")
        cleanUp()
    }

    @Test func credentialsNeverReachOutputOrReports() throws {
        let expected = "Basic " + Data("alice:s3cret".utf8).base64EncodedString()
        server.route("/secret.jpg") { request in
            request.headers["authorization"] == expected
                ? .respond(status: 200, headers: [("Cache-Control", "max-age=60")], body: Fixtures.jpeg)
                : .respond(status: 401, headers: [], body: Data())
        }
        let secret = server.url("/secret.jpg").replacingOccurrences(of: "://", with: "://alice:s3cret@")
        let missing = server.url("/missing.jpg").replacingOccurrences(of: "://", with: "://alice:s3cret@")
        let get = try run(["get", secret, "--size", "64", "--cache-dir", cacheDir, "-o", "/dev/null", "--json"])
        #expect(get.status == 0, "\(get.stderr)")
        let info = try run(["info", secret, "--cache-dir", cacheDir])
        #expect(info.status == 0 && info.stdout.count > 0)
        let failed = try run(["get", missing, "--size", "64", "--cache-dir", cacheDir, "-o", "/dev/null"])
        #expect(failed.status == 4)
        let list = work.appendingPathComponent("urls.txt")
        let report = work.appendingPathComponent("report.json")
        try [secret, missing].joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        let warm = try run(["warm", list.path, "--sizes", "64", "--cache-dir", cacheDir, "--json", report.path])
        #expect(warm.status == 1)
        let reportText = try String(contentsOf: report, encoding: .utf8)
        #expect(reportText.contains("alice:***@"), "the failed URL is named, its password is not: \(reportText)")
        for output in [get, info, failed, warm] {
            let text = String(decoding: output.stdout, as: UTF8.self) + output.stderr
            #expect(!text.contains("s3cret"), "\(text)")
        }
        #expect(!reportText.contains("s3cret"))
        cleanUp()
    }

    @Test func aRefusedRedirectHasItsOwnExitCode() throws {
        server.route("/to-ftp.jpg") { _ in .respond(status: 302, headers: [("Location", "ftp://127.0.0.1/x.jpg")], body: Data()) }
        let get = try run(["get", server.url("/to-ftp.jpg"), "--size", "64", "--cache-dir", cacheDir, "-o", "/dev/null"])
        #expect(get.status == 9, "\(get.stderr)")
        #expect(get.stderr.contains("the ftp: scheme is refused (only http and https)"), "\(get.stderr)")
        let help = try run(["get", "--help"])
        #expect(help.stdout.count > 0 && String(decoding: help.stdout, as: UTF8.self).contains("9 source refused"))
        cleanUp()
    }
}
