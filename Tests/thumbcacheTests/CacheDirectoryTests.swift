import DiskLru
import Foundation
import OriginTestSupport
import Testing
@testable import ThumbcacheKit

/// Issue 14 C7: thumbcache uses a directory only when it can prove it is its own, and read-only commands
/// create and delete nothing.
@Suite(.serialized) struct CacheDirectoryTests {
    let server: OriginServer
    let work: URL

    init() throws {
        server = try OriginServer()
        work = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-dir-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        server.route("/a.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=600")], body: Fixtures.jpeg) }
    }

    func cleanUp() {
        server.shutdown()
        try? FileManager.default.removeItem(at: work)
    }

    func names(_ url: URL) -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [])
    }

    func get(_ cacheDir: URL) throws -> CLITests.Run {
        try CLITests.run(["get", server.url("/a.jpg"), "--size", "64", "--cache-dir", cacheDir.path, "-o", "/dev/null"])
    }

    @Test func aNewCacheIsMarkedWithACacheDirTag() throws {
        let cacheDir = work.appendingPathComponent("new")
        #expect(try get(cacheDir).status == 0)
        let tag = try String(contentsOf: cacheDir.appendingPathComponent("CACHEDIR.TAG"), encoding: .utf8)
        #expect(tag.hasPrefix("Signature: 8a477f597d28d172789f06886806bc55") && tag.contains("thumbcache"))
        #expect(names(cacheDir).isSubset(of: ["CACHEDIR.TAG", "entries", "variants", "downloads", "stats.json"]))
        cleanUp()
    }

    @Test func aForeignDirectoryIsRefusedUntouched() throws {
        let home = work.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("downloads"), withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: home.appendingPathComponent("downloads/holiday.jpg"))
        try Data("keep".utf8).write(to: home.appendingPathComponent("notes.txt"))
        let before = names(home)
        let list = work.appendingPathComponent("urls.txt")
        try Data(server.url("/a.jpg").utf8).write(to: list)
        for command in [["get", server.url("/a.jpg"), "--size", "64", "-o", "/dev/null"], ["info", server.url("/a.jpg")],
                        ["stats"], ["clear"], ["warm", list.path]] {
            let run = try CLITests.run(command + ["--cache-dir", home.path])
            #expect(run.status == 8, "\(command[0]): \(run.stderr)")
            #expect(run.stderr.contains("is not a thumbcache cache directory"), "\(command[0]): \(run.stderr)")
        }
        #expect(names(home) == before && names(home.appendingPathComponent("downloads")) == ["holiday.jpg"])
        // A foreign DiskLru journal (another app's cache) is not ours either.
        let other = work.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: other.appendingPathComponent("entries"), withIntermediateDirectories: true)
        try Data("libcore.io.DiskLruCache\n1\n201105\n2\n\n".utf8).write(to: other.appendingPathComponent("entries/journal"))
        try Data("x".utf8).write(to: other.appendingPathComponent("entries/k.0"))
        #expect(try get(other).status == 8)
        #expect(names(other.appendingPathComponent("entries")) == ["journal", "k.0"])
        cleanUp()
    }

    @Test func aCacheMadeBeforeTheMarkerIsAdopted() async throws {
        let cacheDir = work.appendingPathComponent("old")
        #expect(try get(cacheDir).status == 0)
        try FileManager.default.removeItem(at: cacheDir.appendingPathComponent("CACHEDIR.TAG"))
        let info = try CLITests.run(["info", server.url("/a.jpg"), "--cache-dir", cacheDir.path])
        #expect(info.status == 0, "read-only commands read a pre-marker cache: \(info.stderr)")
        #expect(!names(cacheDir).contains("CACHEDIR.TAG"), "and do not adopt it")
        let again = try get(cacheDir)
        #expect(again.status == 0 && again.stderr.contains("[disk]"), "\(again.stderr)")
        #expect(names(cacheDir).contains("CACHEDIR.TAG"), "a writing command adopts it")
        cleanUp()
    }

    @Test func anEmptyCacheDirIsAUsageError() throws {
        for command in [["get", server.url("/a.jpg"), "--size", "64"], ["stats"], ["clear"]] {
            let run = try CLITests.run(command + ["--cache-dir", ""])
            #expect(run.status == 64, "\(command[0]): \(run.stderr)")
            #expect(run.stderr.contains("--cache-dir must not be empty"), "\(run.stderr)")
        }
        cleanUp()
    }

    @Test func readOnlyCommandsCreateAndDeleteNothing() throws {
        let missing = work.appendingPathComponent("missing")
        let info = try CLITests.run(["info", server.url("/a.jpg"), "--cache-dir", missing.path])
        #expect(info.status == 7, "\(info.stderr)")
        let stats = try CLITests.run(["stats", "--json", "--cache-dir", missing.path])
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(!FileManager.default.fileExists(atPath: missing.path), "neither creates the directory")

        let cacheDir = work.appendingPathComponent("cache")
        #expect(try get(cacheDir).status == 0)
        // Another process's download folder, in flight, and a stray file of an old version: none are touched.
        let downloads = cacheDir.appendingPathComponent("downloads")
        let live = downloads.appendingPathComponent("process-live01")
        try FileManager.default.createDirectory(at: live, withIntermediateDirectories: true)
        try Data("partial".utf8).write(to: live.appendingPathComponent("download-000001"))
        try Data("old".utf8).write(to: downloads.appendingPathComponent("download-000002"))
        let entries = cacheDir.appendingPathComponent("entries")
        let journal = try Data(contentsOf: entries.appendingPathComponent("journal"))
        let before = (names(cacheDir), names(downloads), names(live), names(entries))
        #expect(try CLITests.run(["info", server.url("/a.jpg"), "--cache-dir", cacheDir.path]).status == 0)
        #expect(try CLITests.run(["info", server.url("/b.jpg"), "--cache-dir", cacheDir.path]).status == 7)
        let counted = try CLITests.run(["stats", "--json", "--cache-dir", cacheDir.path])
        #expect(counted.status == 0)
        let object = try JSONSerialization.jsonObject(with: counted.stdout) as? [String: Any] ?? [:]
        #expect(object["entries"] as? Int == 1 && object["misses"] as? Int == 1, "\(object)")
        #expect((names(cacheDir), names(downloads), names(live), names(entries)) == before)
        #expect(try Data(contentsOf: entries.appendingPathComponent("journal")) == journal, "no READ record either")
        cleanUp()
    }

    @Test func readOnlyPipelineRefusesToFetch() async throws {
        var configuration = PipelineConfiguration(cacheDirectory: work.appendingPathComponent("ro"))
        configuration.readOnly = true
        let pipeline = try ThumbnailPipeline(configuration: configuration)
        #expect(try pipeline.info(for: ImageSource(server.url("/a.jpg"))) == nil)
        await #expect(throws: PipelineError.self) { try await pipeline.thumbnail(for: ImageSource(server.url("/a.jpg")), size: 64) }
        await pipeline.close()
        #expect(!FileManager.default.fileExists(atPath: configuration.cacheDirectory.path))
        #expect(server.requestCount("/a.jpg") == 0)
        cleanUp()
    }
}
