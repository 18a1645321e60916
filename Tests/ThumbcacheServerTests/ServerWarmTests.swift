import Foundation
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer
@testable import thumbcache

/// `thumbcache warm --server`: a real server on 127.0.0.1 in front of a real origin on 127.0.0.1.
@Suite(.serialized) struct ServerWarmTests {
    static let key = Data((0..<32).map { UInt8($0) })
    static let salt = Data("pepper".utf8)
    static let sizes = [64, 32]

    @Test func warmingThroughTheServerFillsItsCacheOnce() async throws {
        let origin = try await TestOrigin()
        let sources = (0..<3).map { origin.url("/photo\($0).jpg") }
        for index in 0..<3 { origin.image("/photo\(index).jpg", Fixtures.jpeg) }
        let server = try await ServerHarness { $0.key = Self.key; $0.salt = Self.salt }
        let warmer = ServerWarmer(baseURL: "http://127.0.0.1:\(server.port)/", signer: URLSigner(key: Self.key, salt: Self.salt),
                                  sizes: Self.sizes, concurrency: 2)

        let first = await warmer.run(sources)
        #expect(first.fetched == 3 && first.fresh == 0 && first.failedCount == 0, "\(first.failureSample)")
        #expect(first.bytesDownloaded > 0)
        let second = await warmer.run(sources)
        #expect(second.fresh == 3 && second.fetched == 0 && second.failedCount == 0)
        for index in 0..<3 { #expect(origin.count("/photo\(index).jpg") == 1, "each source fetched once") }
        // What warming requested is what a client then gets from the cache.
        let answer = try await server.request(server.path(sources[0], size: 64))
        #expect(answer.status == 200 && ["memory", "disk"].contains(answer.header("X-Thumbcache")))
        await server.stop()
        await origin.stop()
    }

    @Test func aWrongKeyAndAMissingSourceAreCountedWithTheirStatus() async throws {
        let origin = try await TestOrigin()
        origin.image("/there.jpg", Fixtures.jpeg)
        let server = try await ServerHarness { $0.key = Self.key; $0.salt = Self.salt }
        let base = "http://127.0.0.1:\(server.port)"

        let wrongKey = ServerWarmer(baseURL: base, signer: URLSigner(key: Data(repeating: 7, count: 32), salt: Self.salt),
                                    sizes: Self.sizes, concurrency: 2)
        var failures: [WarmReport.Failure] = []
        let refused = await wrongKey.run([origin.url("/there.jpg")], onFailure: { failures.append($0) })
        #expect(refused.failedCount == 1 && refused.fetched == 0)
        #expect(failures.map(\.reason) == ["HTTP 403 (bad_signature)"])
        #expect(origin.count("/there.jpg") == 0, "a refused signature fetches nothing")

        let warmer = ServerWarmer(baseURL: base, signer: URLSigner(key: Self.key, salt: Self.salt), sizes: Self.sizes, concurrency: 2)
        failures = []
        let mixed = await warmer.run([origin.url("/there.jpg"), origin.url("/gone.jpg")], onFailure: { failures.append($0) })
        #expect(mixed.fetched == 1 && mixed.failedCount == 1)
        #expect(failures.first?.url == origin.url("/gone.jpg") && failures.first?.reason == "HTTP 404 (origin_not_found)")
        await server.stop()
        await origin.stop()
    }

    /// The command itself: key and salt from the environment, the JSON report, exit code 1 on a failure.
    @Test func theWarmCommandReportsServerFailures() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness { $0.key = Self.key; $0.salt = Self.salt }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("warm-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let list = scratch.appendingPathComponent("urls.txt"), json = scratch.appendingPathComponent("report.json")
        try "\(origin.url("/a.jpg"))\n\(origin.url("/missing.jpg"))\n".write(to: list, atomically: true, encoding: .utf8)

        let hex = { (data: Data) in data.map { String(format: "%02x", $0) }.joined() }
        let run = try ServeProcess.run(["warm", list.path, "--server", "http://127.0.0.1:\(server.port)", "--sizes", "64,32",
                                        "--json", json.path, "--quiet"],
                                       environment: ["THUMBCACHE_KEY": hex(Self.key), "THUMBCACHE_SALT": hex(Self.salt)])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("1 fetched") && run.stderr.contains("1 failed"), "\(run.stderr)")
        #expect(run.stderr.contains("HTTP 404 (origin_not_found)"), "\(run.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any]
        #expect(report?["fetched"] as? Int == 1 && report?["failedCount"] as? Int == 1)
        #expect(origin.count("/a.jpg") == 1)

        let bad = try ServeProcess.run(["warm", list.path, "--server", "ftp://127.0.0.1/"])
        #expect(bad.status == 64, "\(bad.stderr)")
        await server.stop()
        await origin.stop()
    }
}
