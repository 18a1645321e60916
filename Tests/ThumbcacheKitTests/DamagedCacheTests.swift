import BombTestSupport
import DiskLru
import Foundation
import ImageDecode
import NIOCore
import OriginTestSupport
import Testing
@testable import ThumbcacheKit

/// Issue 14 C9 and C10: a damaged stored original heals by fetching again; a thumbnail that cannot be stored
/// (full disk) is still handed over.
@Suite(.serialized) struct DamagedCacheTests {
    let server: OriginServer

    init() throws { server = try OriginServer() }

    /// 200 with an ETag, or 304 to a request that has it.
    func routeRevalidating(_ path: String, maxAge: Int = 600) {
        server.route(path) { request in
            request.headers["if-none-match"] == "\"v1\""
                ? .respond(status: 304, headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=\(maxAge)")], body: Data())
                : .respond(status: 200, headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=\(maxAge)")], body: Fixtures.jpeg)
        }
    }

    func originalPath(_ harness: PipelineHarness, _ source: ImageSource) -> String {
        harness.directory.appendingPathComponent("entries/\(source.cacheKey).\(EntryStore.originalIndex)").path
    }

    /// Caches `path` at 64 px, reopens (an empty memory cache, as a new process), then damages the stored
    /// original with `damage`; the returned pipeline is to ask for a size that needs the original.
    func cachedThenDamaged(_ path: String, _ damage: (String) throws -> Void) async throws -> (PipelineHarness, ImageSource) {
        routeRevalidating(path)
        let harness = try PipelineHarness()
        let source = try ImageSource(server.url(path))
        _ = try await harness.pipeline.thumbnail(for: source, size: 64)
        try await harness.reopen()
        try damage(originalPath(harness, source))
        return (harness, source)
    }

    @Test func aTruncatedOriginalIsDroppedAndFetchedAgain() async throws {
        let (harness, source) = try await cachedThenDamaged("/a.jpg") { #expect(truncate($0, off_t(Fixtures.jpeg.count / 2)) == 0) }
        let healed = try await harness.pipeline.thumbnail(for: source, size: 128)
        #expect(healed.servedFrom == .network && healed.width == 128)
        #expect(server.requestCount("/a.jpg") == 2)
        #expect(try Data(contentsOf: URL(fileURLWithPath: originalPath(harness, source))) == Fixtures.jpeg)
        try await harness.reopen()
        #expect(try await harness.pipeline.thumbnail(for: source, size: 256).servedFrom == .disk, "healed for good")
        await harness.close()
        server.shutdown()
    }

    @Test func refreshDoesNotLetA304KeepBrokenBytes() async throws {
        let (harness, source) = try await cachedThenDamaged("/r.jpg") { #expect(truncate($0, 100) == 0) }
        let refreshed = try await harness.pipeline.thumbnail(for: source, size: 128, policy: .refresh)
        #expect(refreshed.servedFrom == .network)
        #expect(server.requests("/r.jpg").last?.headers["if-none-match"] == nil, "asked unconditionally, so no 304")
        await harness.close()
        server.shutdown()
    }

    @Test func anUnreadableOriginalIsFetchedAgain() async throws {
        let (harness, source) = try await cachedThenDamaged("/u.jpg") { path in
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)  // EISDIR on read
        }
        #expect(try await harness.pipeline.thumbnail(for: source, size: 128).servedFrom == .network)
        await harness.close()
        server.shutdown()
    }

    /// A small tmpfs is a real full disk (ENOSPC). Before the fix, the failed store failed the request (exit 8)
    /// and the finished thumbnail was lost.
    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root (CI runs as root); without it this is reported as skipped, and aFileTooLargeForTheCacheStillHandsOverTheThumbnail covers the same path unprivileged"))
    func aFullCacheDiskStillHandsOverTheThumbnail() async throws {
        let mountPoint = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-full-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: mountPoint) }
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint.path]
        let errors = Pipe()
        mount.standardError = errors
        try mount.run()
        let why = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        mount.waitUntilExit()
        // Root that cannot mount (a container without CAP_SYS_ADMIN) is a failure, not a pass without a test.
        guard mount.terminationStatus == 0 else {
            Issue.record("cannot mount a 1 MiB tmpfs as root, so the full disk was not tested: \(why)")
            return
        }
        defer {
            let umount = Process()
            umount.executableURL = URL(fileURLWithPath: "/bin/umount")
            umount.arguments = [mountPoint.path]
            try? umount.run()
            umount.waitUntilExit()
        }
        let body = Fixtures.jpeg + Data(repeating: 0, count: 200_000)  // trailing bytes after EOI: still a valid JPEG
        server.route("/big.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=600")], body: body) }
        let cacheDir = mountPoint.appendingPathComponent("cache")
        let pipeline = try ThumbnailPipeline(configuration: PipelineConfiguration(cacheDirectory: cacheDir))
        // Leave room for the download, not for a second copy of it in the cache.
        var space = statvfs()
        #expect(statvfs(mountPoint.path, &space) == 0)
        let free = Int(space.f_bavail) * Int(space.f_frsize)
        try Data(count: free - body.count - 48 << 10).write(to: mountPoint.appendingPathComponent("filler"))

        let source = try ImageSource(server.url("/big.jpg"))
        let result = try await pipeline.thumbnail(for: source, size: 64)
        #expect(result.width == 64 && ImageFormat.sniff(result.data) == .jpeg)
        let reason = try #require(result.notCachedBecause)
        #expect(reason.contains("No space left on device"), "\(reason)")
        #expect(try pipeline.info(for: source) == nil, "nothing half-stored")
        await pipeline.close()
        // The download's file (and any half-written value) goes when the last reference to it does, which a busy
        // machine may delay past `close()`: the child below needs that room, so wait for it (a hang guard, not a
        // verdict: a run beside stress-ng had the child's download fail with ENOSPC). Wait for the file system's free
        // space, not for the files to vanish: an unlinked file still open keeps its blocks, and a run beside two
        // test runs found no file left while the room was still taken (the child's download failed again).
        func freeBytes() -> Int {
            var space = statvfs()
            return statvfs(mountPoint.path, &space) == 0 ? Int(space.f_bavail) * Int(space.f_frsize) : 0
        }
        let deadline = ContinuousClock.now + .seconds(600)
        while freeBytes() < body.count + (16 << 10), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }

        // The output goes elsewhere: only the cache disk is full.
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-full-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: output) }
        let run = try ThumbcacheChild.run(["get", server.url("/big.jpg"), "--size", "64", "--cache-dir", cacheDir.path, "-o", output.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning: the thumbnail was written but not cached"), "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: output.path))

        let list = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-full-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: list) }
        try Data(server.url("/big.jpg").utf8).write(to: list)
        let warm = try ThumbcacheChild.run(["warm", list.path, "--sizes", "64", "--cache-dir", cacheDir.path])
        #expect(warm.status == 1, "warming that stored nothing failed: \(warm.stderr)")
        #expect(warm.stderr.contains("not cached: "), "\(warm.stderr)")
        server.shutdown()
    }

    /// The same hand-over without root, in a child whose files may not grow past 64 KiB (RLIMIT_FSIZE, SIGXFSZ
    /// ignored): storing the 260 KB original fails with EFBIG where a full disk fails with ENOSPC, the same
    /// failed store, while the thumbnail, the journal and the output stay small. A local original, as the
    /// download of a remote one would hit the limit first. Before the fix: exit 8 and no thumbnail.
    @Test(.disabled(if: CappedProcess.underThreadSanitizer, "ThreadSanitizer dies (SIGBUS) under a file-size limit; the tmpfs case runs there"))
    func aFileTooLargeForTheCacheStillHandsOverTheThumbnail() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-fsize-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let original = work.appendingPathComponent("big.jpg")
        try (Fixtures.jpeg + Data(repeating: 0, count: 250_000)).write(to: original)  // zeros after EOI: still a JPEG
        let cacheDir = work.appendingPathComponent("cache").path, output = work.appendingPathComponent("small.jpg")
        let limit = 64 << 10

        let get = try ThumbcacheChild.run(["get", original.path, "--size", "64", "--cache-dir", cacheDir, "-o", output.path],
                                   fileSizeLimit: limit)
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stderr.contains("warning: the thumbnail was written but not cached") && get.stderr.contains("File too large"),
                "\(get.stderr)")
        let thumbnail = try Data(contentsOf: output)
        #expect(ImageFormat.sniff(thumbnail) == .jpeg && (try? ImageDecoder.probe(thumbnail).width) == 64)

        let info = try ThumbcacheChild.run(["info", original.path, "--cache-dir", cacheDir])
        #expect(info.status == 7, "nothing half-stored: \(info.stderr)")

        let list = work.appendingPathComponent("list.txt")
        try Data(original.path.utf8).write(to: list)
        let warm = try ThumbcacheChild.run(["warm", list.path, "--sizes", "64", "--cache-dir", cacheDir], fileSizeLimit: limit)
        #expect(warm.status == 1, "warming that stored nothing failed: \(warm.stderr)")
        #expect(warm.stderr.contains("not cached: "), "\(warm.stderr)")
        server.shutdown()
    }
}
