import DiskLru
import Foundation
import NIOCore
import Testing
@testable import ThumbcacheKit

/// Issue 14 B6: processes sharing a cache hold its lock only while touching it, never across a download.
@Suite(.serialized) struct SharedCacheTests {
    let server: OriginServer
    let work: URL

    init() throws {
        server = try OriginServer()
        work = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-shared-\(UUID().uuidString)")
        server.route("/fast.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=600")], body: Fixtures.jpeg) }
        // About 3 s: long enough that everything else in a test is done well before it.
        server.route("/slow.jpg") { _ in .trickle(body: Fixtures.jpeg, chunk: Fixtures.jpeg.count / 30 + 1, delay: .milliseconds(100)) }
    }

    func cleanUp() {
        server.shutdown()
        try? FileManager.default.removeItem(at: work)
    }

    func configuration(_ mode: PipelineConfiguration.LockMode = .perAccess) -> PipelineConfiguration {
        var configuration = PipelineConfiguration(cacheDirectory: work)
        configuration.lockMode = mode
        return configuration
    }

    @Test func aDiskHitIsServedWhileAnotherPipelineDownloads() async throws {
        let first = try ThumbnailPipeline(configuration: configuration())
        _ = try await first.thumbnail(for: ImageSource(server.url("/fast.jpg")), size: 64)
        let slowDone = Locked(false)
        let slow = Task {
            defer { slowDone.withLock { $0 = true } }
            return try await first.thumbnail(for: ImageSource(server.url("/slow.jpg")), size: 64)
        }
        while server.requestCount("/slow.jpg") == 0 { try await Task.sleep(for: .milliseconds(10)) }
        // A second pipeline on the directory (as another process would be): opening it, a disk hit and a
        // closing all happen while the first is still downloading, i.e. without waiting for its lock.
        let second = try ThumbnailPipeline(configuration: configuration())
        let hit = try await second.thumbnail(for: ImageSource(server.url("/fast.jpg")), size: 64)
        await second.close()
        #expect(hit.servedFrom == .disk)
        #expect(!slowDone.withLock { $0 }, "the disk hit did not wait for the download")
        #expect(try await slow.value.servedFrom == .network)
        // Each sees what the other stored: the second pipeline's counters and the first's new entry.
        let third = try ThumbnailPipeline(configuration: configuration())
        #expect(try await third.thumbnail(for: ImageSource(server.url("/slow.jpg")), size: 64).servedFrom == .disk)
        await third.close()
        await first.close()
        cleanUp()
    }

    @Test func holdForLifetimeKeepsTheDirectoryUntilClose() async throws {
        let owner = try ThumbnailPipeline(configuration: configuration(.holdForLifetime))
        var waiting = configuration(.holdForLifetime)
        waiting.lockTimeout = .milliseconds(200)
        #expect(throws: PipelineError.self) { _ = try ThumbnailPipeline(configuration: waiting) }
        await owner.close()
        let next = try ThumbnailPipeline(configuration: waiting)
        await next.close()
        cleanUp()
    }

    @Test func parallelCLIGetsDoNotWaitForEachOthersDownloads() throws {
        let cacheDir = work.path
        #expect(try CLITests.run(["get", server.url("/fast.jpg"), "--size", "64", "--cache-dir", cacheDir, "-o", "/dev/null"]).status == 0)
        let slow = try CLITests.launch(["get", server.url("/slow.jpg"), "--size", "64", "--cache-dir", cacheDir, "-o", "/dev/null"])
        while server.requestCount("/slow.jpg") == 0 { usleep(10_000) }
        let hit = try CLITests.run(["get", server.url("/fast.jpg"), "--size", "128", "--cache-dir", cacheDir, "-o", "/dev/null"])
        #expect(hit.status == 0 && hit.stderr.contains("[disk]"), "\(hit.stderr)")
        #expect(!hit.stderr.contains("waiting for the cache directory"))
        #expect(slow.0.isRunning, "the disk hit finished while the other get was still downloading")
        let slowRun = CLITests.finish(slow)
        #expect(slowRun.status == 0 && slowRun.stderr.contains("[network]"), "\(slowRun.stderr)")
        let stats = try CLITests.run(["stats", "--json", "--cache-dir", cacheDir])
        let object = try JSONSerialization.jsonObject(with: stats.stdout) as? [String: Any] ?? [:]
        #expect(object["entries"] as? Int == 2 && object["misses"] as? Int == 2 && object["diskHits"] as? Int == 1,
                "both processes' entries and counters are kept: \(object)")
        cleanUp()
    }
}
