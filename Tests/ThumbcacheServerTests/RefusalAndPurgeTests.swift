import Foundation
import Testing
@testable import ThumbcacheKit
@testable import ThumbcacheServer

/// What a refusal tells a client, and what a purge says it removed.
@Suite(.serialized) struct RefusalAndPurgeTests {
    /// `localhost` resolves to loopback addresses, refused here: the 403 says refused and why in kind, but names
    /// no address (a public server must not be a DNS oracle) unless `debugRefusals` is on.
    @Test func aRefusalNamesNoAddressUnlessDebugging() async throws {
        let source = "http://localhost:9/a.jpg"
        for debug in [false, true] {
            let server = try await ServerHarness { $0.allowLoopbackSources = false; $0.debugRefusals = debug }
            let answer = try await server.request(server.path(source, size: 64))
            let message = answer.json["message"] ?? ""
            #expect(answer.status == 403 && answer.json["error"] == "source_refused", "\(answer.status) \(message)")
            #expect(message.contains("refused source \(source)"), "\(message)")
            let namesAnAddress = message.contains("127.0.0.1") || message.contains("::1") || message.contains("loopback address")
            #expect(namesAnAddress == debug, "debug \(debug): \(message)")
            await server.stop()
        }
    }

    @Test(arguments: [
        ("localhost resolves to 127.0.0.1, a loopback address", "not a public address"),
        ("its redirect to http://10.0.0.1/: 10.0.0.1 is a private address", "a redirect: its host is not a public address"),
        ("http://a.test/x is not under an allowed source prefix", "not under an allowed source prefix"),
        ("it redirects to ftp://x/y: the ftp: scheme is refused (only http and https)", "other than http or https"),
    ])
    func refusalsAreSaidByKind(_ reason: String, _ said: String) {
        let message = ServeError(.sourceRefused(url: "http://a.test/x", reason: reason)).message
        #expect(message.contains(said) && !message.contains("10.0.0.1") && !message.contains("127.0.0.1"), "\(message)")
        #expect(ServeError(.sourceRefused(url: "http://a.test/x", reason: reason), revealingRefusals: true).message.contains(reason))
    }

    /// A source whose disk entry is already gone but whose thumbnail is still in memory: the purge removes that
    /// copy and says so, as a JSON boolean.
    @Test func aPurgeThatRemovesOnlyTheMemoryCopySaysRemoved() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness { $0.adminToken = "s3cret" }
        let path = server.path(origin.url("/a.jpg"), size: 64)
        #expect(try await server.request(path).status == 200)
        let source = try ImageSource(origin.url("/a.jpg"))
        server.endpoints.pipeline.store.remove(key: source.cacheKey)  // as an eviction would
        #expect(try server.endpoints.pipeline.info(for: source) == nil)
        #expect(try await server.request(path).header("X-Thumbcache") == "memory")
        let purge = "/admin/purge/\(Base64URL.encode(origin.url("/a.jpg")))"
        let first = try await server.request(purge, method: .POST, headers: [("Authorization", "Bearer s3cret")])
        #expect(first.status == 200 && first.jsonObject["removed"] as? Bool == true, "\(String(decoding: first.body, as: UTF8.self))")
        #expect(try await server.request(path).header("X-Thumbcache") == "network", "gone from memory")
        _ = try server.endpoints.pipeline.remove(source: source)
        let again = try await server.request(purge, method: .POST, headers: [("Authorization", "Bearer s3cret")])
        #expect(again.jsonObject["removed"] as? Bool == false, "nothing left: \(String(decoding: again.body, as: UTF8.self))")
        await server.stop()
        await origin.stop()
    }
}
