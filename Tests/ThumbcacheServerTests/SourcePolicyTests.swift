import Foundation
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// SSRF: sources that reach a refused address, by any spelling or through a redirect, are 403 and the
/// refused server (a second origin on 127.0.0.1) never gets a request.
@Suite(.serialized) struct SourcePolicyTests {
    static func spellings(port: Int) -> [String] {
        [
            "http://127.1:\(port)/secret.jpg",
            "http://2130706433:\(port)/secret.jpg",
            "http://0x7f000001:\(port)/secret.jpg",
            "http://[::ffff:127.0.0.1]:\(port)/secret.jpg",
            "http://localhost:\(port)/secret.jpg",
            "http://127.0.0.1:\(port)/secret.jpg",
        ]
    }

    /// The allowed origin is opened by --allow-loopback-sources and an --allow-source prefix; the refused
    /// one is on the same address, outside the prefix.
    @Test func prefixesRefuseEverySpellingAndRedirect() async throws {
        let allowed = try await TestOrigin()
        let refused = try await TestOrigin()
        refused.image("/secret.jpg", Fixtures.jpeg)
        allowed.image("/ok.jpg", Fixtures.jpeg)
        allowed.route("/hop.jpg") { _ in .init(status: .found, headers: [.location: refused.url("/secret.jpg")]) }
        let server = try await ServerHarness {
            $0.allowLoopbackSources = true
            $0.allowedSources = [allowed.url("/")]
        }
        #expect(try await server.request(server.path(allowed.url("/ok.jpg"), size: 64)).status == 200)
        for source in Self.spellings(port: refused.port) + [allowed.url("/hop.jpg")] {
            let answer = try await server.request(server.path(source, size: 64))
            #expect(answer.status == 403 && answer.json["error"] == "source_refused", "\(source): \(answer.status) \(answer.json)")
        }
        #expect(refused.total == 0, "the refused server was never contacted")
        await server.stop()
        await allowed.stop()
        await refused.stop()
    }

    /// Without --allow-loopback-sources, the address check after resolution refuses every loopback spelling.
    @Test func loopbackAddressesAreRefusedByDefault() async throws {
        let refused = try await TestOrigin()
        refused.image("/secret.jpg", Fixtures.jpeg)
        let server = try await ServerHarness { $0.allowLoopbackSources = false }
        for source in Self.spellings(port: refused.port) {
            let answer = try await server.request(server.path(source, size: 64))
            #expect(answer.status == 403 && answer.json["error"] == "source_refused", "\(source): \(answer.status) \(answer.json)")
        }
        #expect(refused.total == 0)
        let metrics = String(decoding: try await server.request("/metrics").body, as: UTF8.self)
        #expect(metrics.contains("thumbcache_refusals_total{reason=\"source_refused\"} 6"), "\(metrics)")
        await server.stop()
        await refused.stop()
    }
}
