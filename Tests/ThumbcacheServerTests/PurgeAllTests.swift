import BombTestSupport
import Foundation
import Testing
@testable import ThumbcacheKit
@testable import ThumbcacheServer

/// `POST /admin/purge-all` on a running server, and `thumbcache clear` on a directory a server holds.
@Suite(.serialized) struct PurgeAllTests {
    @Test func purgeAllEmptiesBothCachesAndSaysWhatItRemoved() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        origin.image("/b.jpg", Fixtures.jpeg)
        let server = try await ServerHarness { $0.adminToken = "s3cret" }
        let paths = [server.path(origin.url("/a.jpg"), size: 64), server.path(origin.url("/b.jpg"), size: 128)]
        for path in paths { #expect(try await server.request(path).status == 200) }
        #expect(try await server.request(paths[0]).header("X-Thumbcache") == "memory")
        let stored = server.endpoints.pipeline.statistics()
        #expect(stored.entries == 2)
        #expect(try await server.request("/admin/purge-all", method: .POST).status == 401)
        #expect(try await server.request("/admin/purge-all", method: .POST, headers: [("Authorization", "Bearer wrong")]).status == 401)
        #expect(server.endpoints.pipeline.statistics().entries == 2, "a refused purge removes nothing")
        let purge = try await server.request("/admin/purge-all", method: .POST, headers: [("Authorization", "Bearer s3cret")])
        #expect(purge.status == 200, "\(String(decoding: purge.body, as: UTF8.self))")
        #expect(purge.jsonObject["entries"] as? Int == 2)
        #expect((purge.jsonObject["bytes"] as? Int).map { Int64($0) == stored.bytes && $0 > 0 } == true, "\(purge.jsonObject)")
        #expect((purge.jsonObject["memoryThumbnails"] as? Int ?? 0) >= 2)
        #expect(server.endpoints.pipeline.statistics().entries == 0)
        #expect(try await server.request(paths[0]).header("X-Thumbcache") == "network", "the hit became a miss")
        #expect(try await server.request(paths[1]).header("X-Thumbcache") == "network")
        await server.stop()
        await origin.stop()
    }

    @Test func withoutAnAdminTokenThereIsNoPurgeAll() async throws {
        let server = try await ServerHarness()
        #expect(try await server.request("/admin/purge-all", method: .POST).status != 200)
        await server.stop()
    }

    @Test func clearOnADirectoryAServerHoldsSaysHowToPurgeThroughIt() async throws {
        let server = try await ServerHarness { $0.adminToken = "s3cret" }
        let cleared = try ServeProcess.run(["clear", "--cache-dir", server.directory.path])
        #expect(cleared.status == 8, "\(cleared.stderr)")
        #expect(cleared.stderr.contains("in use by another thumbcache process"), "\(cleared.stderr)")
        #expect(cleared.stderr.contains("curl -X POST -H 'Authorization: Bearer <admin token>' http://HOST:PORT/admin/purge-all"),
                "\(cleared.stderr)")
        await server.stop(removingDirectory: false)
        // Once the server is gone, clear works.
        let after = try ServeProcess.run(["clear", "--cache-dir", server.directory.path])
        #expect(after.status == 0, "\(after.stderr)")
        try? FileManager.default.removeItem(at: server.directory)
    }
}
