import DiskLru
import BombTestSupport
import Foundation
import NIOCore
import OriginTestSupport
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
        // Ends when a test releases it: a time (it was a 3 s trickle) made the checks below a race on a busy machine.
        server.route("/slow.jpg") { _ in .held(body: Fixtures.jpeg, until: "slow") }
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
        server.release("slow")
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
        #expect(try ThumbcacheChild.run(["get", server.url("/fast.jpg"), "--size", "64", "--cache-dir", cacheDir, "-o", "/dev/null"]).status == 0)
        let slow = try ThumbcacheChild.launch(["get", server.url("/slow.jpg"), "--size", "64", "--cache-dir", cacheDir, "-o", "/dev/null"])
        while server.requestCount("/slow.jpg") == 0 { usleep(10_000) }
        let hit = try ThumbcacheChild.run(["get", server.url("/fast.jpg"), "--size", "128", "--cache-dir", cacheDir, "-o", "/dev/null"])
        #expect(hit.status == 0 && hit.stderr.contains("[disk]"), "\(hit.stderr)")
        #expect(!hit.stderr.contains("waiting for the cache directory"))
        #expect(slow.0.isRunning, "the disk hit finished while the other get was still downloading")
        server.release("slow")
        let slowRun = ThumbcacheChild.finish(slow)
        #expect(slowRun.status == 0 && slowRun.stderr.contains("[network]"), "\(slowRun.stderr)")
        let stats = try ThumbcacheChild.run(["stats", "--json", "--cache-dir", cacheDir])
        let object = try JSONSerialization.jsonObject(with: stats.stdout) as? [String: Any] ?? [:]
        #expect(object["entries"] as? Int == 2 && object["misses"] as? Int == 2 && object["diskHits"] as? Int == 1,
                "both processes' entries and counters are kept: \(object)")
        cleanUp()
    }

    /// Two `get` processes on one cache directory, each downloading its own slow URL, download at the same
    /// time: the origin sees the second request arrive before the first body has ended. The first body is
    /// held open until that request arrives (at most 20 s), so the order does not depend on how fast the
    /// second process starts. Before the fix, the first process held the directory lock across its download:
    /// the second could only ask once the first was done, so the first body ended (after its 20 s) first.
    @Test func twoGetsOnOneDirectoryDownloadAtTheSameTime() throws {
        let cacheDir = work.path
        server.route("/first.jpg") { _ in
            .streamUntilRequest(for: "/second.jpg", head: Fixtures.jpeg, atMost: 400 << 10, chunk: 1 << 10, delay: .milliseconds(50))
        }
        // About 1.5 s, after the JPEG (zeros after its end: still a JPEG).
        server.route("/second.jpg") { _ in
            .stream(head: Fixtures.jpeg, declaredLength: Fixtures.jpeg.count + (30 << 10), chunk: 1 << 10, delay: .milliseconds(50))
        }
        let get = { (path: String) in
            try ThumbcacheChild.launch(["get", server.url(path), "--size", "64", "--cache-dir", cacheDir, "-o", "/dev/null"])
        }
        let first = try get("/first.jpg")
        while server.requestCount("/first.jpg") == 0 && first.0.isRunning { usleep(10_000) }
        let second = try get("/second.jpg")
        let (firstRun, secondRun) = (ThumbcacheChild.finish(first), ThumbcacheChild.finish(second))
        #expect(firstRun.status == 0 && firstRun.stderr.contains("[network]"), "\(firstRun.stderr)")
        #expect(secondRun.status == 0 && secondRun.stderr.contains("[network]"), "\(secondRun.stderr)")

        let events = server.events
        let secondArrived = try #require(events.firstIndex(of: .request("/second.jpg")), "\(events)")
        let firstEnded = try #require(events.firstIndex(of: .bodyEnded("/first.jpg")), "\(events)")
        #expect(events.firstIndex(of: .request("/first.jpg"))! < secondArrived)
        #expect(secondArrived < firstEnded, "the second download started while the first was still running: \(events)")
        #expect(events.contains(.bodyEnded("/second.jpg")))
        #expect((server.stream("/first.jpg")?.bytesSent ?? .max) < 400 << 10, "the first body ended at the second request")

        let stats = try ThumbcacheChild.run(["stats", "--json", "--cache-dir", cacheDir])
        let object = try JSONSerialization.jsonObject(with: stats.stdout) as? [String: Any] ?? [:]
        #expect(object["entries"] as? Int == 2 && object["misses"] as? Int == 2, "both downloads are stored: \(object)")
        cleanUp()
    }
}
