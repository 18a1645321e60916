import Foundation
import NIOCore
import OriginTestSupport
import Testing
@testable import ThumbcacheKit

/// Names to addresses from a table, so that no DNS query leaves the machine; numeric hosts are themselves.
struct TableResolver: HostResolver {
    let table: [String: [String]]

    func addresses(of host: String) async throws(HostResolutionError) -> [IPAddress] {
        if let literal = IPAddress(host) { return [literal] }
        guard let list = table[host] else { throw HostResolutionError(host: host, notFound: true, reason: "no such name") }
        return list.compactMap(IPAddress.init)
    }
}

/// The source policy against real servers on loopback: an allowed origin, and beside it a second server that
/// the policy does not cover, which must never see a connection, whatever the spelling or the redirect.
@Suite(.serialized) struct SourcePolicyHTTPTests {
    let allowed: OriginServer
    let refused: OriginServer

    init() throws {
        allowed = try OriginServer()
        refused = try OriginServer()
        for server in [allowed, refused] {
            server.route("/x.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=60")], body: Fixtures.jpeg) }
        }
    }

    func shutdown() {
        allowed.shutdown()
        refused.shutdown()
    }

    /// The spellings of 127.0.0.1 (and localhost) for the refused server's port.
    var refusedSpellings: [String] {
        let port = refused.port
        return ["127.0.0.1", "127.1", "2130706433", "0x7f000001", "[::ffff:127.0.0.1]", "localhost"]
            .map { "http://\($0):\(port)/x.jpg" }
    }

    static func refusal(_ pipeline: ThumbnailPipeline, _ url: String) async -> String? {
        guard case .sourceRefused(_, let reason)? = await PipelineHTTPTests.failure(pipeline, url) else { return nil }
        #expect(PipelineError.sourceRefused(url: url, reason: reason).exitCode == 9)
        return reason
    }

    @Test func onlyTheAllowedPrefixIsReachedWhateverTheSpellingOrRedirect() async throws {
        let refusedURL = refused.url("/x.jpg")
        allowed.route("/to-refused") { _ in .respond(status: 302, headers: [("Location", refusedURL)], body: Data()) }
        let sneaky = "http://0x7f000001:\(refused.port)/x.jpg"
        allowed.route("/to-hex") { _ in .respond(status: 307, headers: [("Location", sneaky)], body: Data()) }
        let harness = try PipelineHarness {
            $0.sourcePolicy = SourcePolicy(allowedPrefixes: [allowed.url("/")], allowLoopback: true, allowPrivate: false)
        }
        let ok = try await harness.pipeline.thumbnail(for: try ImageSource(allowed.url("/x.jpg")), size: 64)
        #expect(ok.servedFrom == .network)
        for url in refusedSpellings + [allowed.url("/to-refused"), allowed.url("/to-hex")] {
            let reason = await Self.refusal(harness.pipeline, url)
            #expect(reason?.contains("not under an allowed source prefix") == true, "\(url): \(String(describing: reason))")
        }
        #expect(await Self.refusal(harness.pipeline, allowed.url("/to-refused"))?.hasPrefix("its redirect to \(refusedURL)") == true)
        #expect(refused.connectionCount == 0 && refused.totalRequests == 0)
        #expect(allowed.requestCount("/to-refused") == 2 && allowed.requestCount("/to-hex") == 1)
        #expect(harness.pipeline.statistics().entries == 1, "only the allowed image was stored")
        await harness.close()
        shutdown()
    }

    @Test func withoutLoopbackEveryLoopbackAddressIsRefusedAfterResolution() async throws {
        let harness = try PipelineHarness {
            $0.sourcePolicy = SourcePolicy(allowedPrefixes: [allowed.url("/")], allowLoopback: false, allowPrivate: true)
        }
        let own = await Self.refusal(harness.pipeline, allowed.url("/x.jpg"))
        #expect(own == "127.0.0.1 is a loopback address", "\(String(describing: own))")
        await harness.close()

        let open = try PipelineHarness { $0.sourcePolicy = SourcePolicy(allowLoopback: false, allowPrivate: false) }
        var reasons: [String] = []
        for url in refusedSpellings {
            let reason = await Self.refusal(open.pipeline, url)
            #expect(reason?.contains("a loopback address") == true, "\(url): \(String(describing: reason))")
            reasons.append(reason ?? "")
        }
        #expect(reasons[1] == "127.1 resolves to 127.0.0.1, a loopback address", "\(reasons[1])")
        #expect(reasons[4] == "::ffff:127.0.0.1 is a loopback address", "\(reasons[4])")
        #expect(allowed.connectionCount == 0 && refused.connectionCount == 0)
        await open.close()
        shutdown()
    }

    @Test func connectionsGoToTheCheckedAddressOnly() async throws {
        // `localhost` resolves (by this table) to 127.0.0.2, where the pinned origin listens: reaching it proves the
        // client connected to the address that was checked, not to one it looked up itself.
        let pinned = try OriginServer(host: "127.0.0.2")
        pinned.route("/x.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=60")], body: Fixtures.jpeg) }
        let resolver = TableResolver(table: [
            "localhost": ["127.0.0.2"],
            // A refused address first: skipped, never connected to; then the allowed one.
            "mixed.test": ["198.51.100.7", "127.0.0.1"],
            // Nothing listens on [::1] at that port: the next address is tried, as Happy Eyeballs would.
            "fallback.test": ["::1", "127.0.0.1"],
            "rebound.test": ["127.0.0.1"],
        ])
        let harness = try PipelineHarness {
            $0.sourcePolicy = SourcePolicy(allowLoopback: true, allowPrivate: false)
            $0.hostResolver = resolver
        }
        let viaName = try await harness.pipeline.thumbnail(for: try ImageSource("http://localhost:\(pinned.port)/x.jpg"), size: 64)
        #expect(viaName.servedFrom == .network)
        #expect(pinned.requests("/x.jpg").first?.headers["host"] == "localhost:\(pinned.port)", "the Host header keeps the name")
        let mixed = try await harness.pipeline.thumbnail(for: try ImageSource("http://mixed.test:\(allowed.port)/x.jpg"), size: 64)
        #expect(mixed.servedFrom == .network && allowed.requestCount("/x.jpg") == 1)
        let fallback = try await harness.pipeline.thumbnail(for: try ImageSource("http://fallback.test:\(allowed.port)/x.jpg"), size: 64)
        #expect(fallback.servedFrom == .network && allowed.requestCount("/x.jpg") == 2)
        let nowhere = await PipelineHTTPTests.failure(harness.pipeline, "http://nowhere.test:\(refused.port)/x.jpg")
        #expect(nowhere?.description == "network error fetching http://nowhere.test:\(refused.port)/x.jpg: host nowhere.test does not resolve")
        #expect(nowhere?.exitCode == 3)
        await harness.close()

        let strict = try PipelineHarness {
            $0.sourcePolicy = SourcePolicy(allowLoopback: false, allowPrivate: false)
            $0.hostResolver = resolver
        }
        let rebound = await Self.refusal(strict.pipeline, "http://rebound.test:\(refused.port)/x.jpg")
        #expect(rebound == "rebound.test resolves to 127.0.0.1, a loopback address")
        let all = await Self.refusal(strict.pipeline, "http://mixed.test:\(refused.port)/x.jpg")
        #expect(all == "mixed.test resolves to 198.51.100.7, a reserved address; 127.0.0.1, a loopback address")
        #expect(refused.connectionCount == 0)
        await strict.close()
        pinned.shutdown()
        shutdown()
    }

    @Test func anIPv6AddressCanBePinned() async throws {
        let v6 = try OriginServer(host: "::1")
        v6.route("/x.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=60")], body: Fixtures.jpeg) }
        let harness = try PipelineHarness {
            $0.sourcePolicy = SourcePolicy(allowLoopback: true, allowPrivate: false)
            $0.hostResolver = TableResolver(table: ["localhost": ["::1"]])
        }
        for url in ["http://[::1]:\(v6.port)/x.jpg", "http://localhost:\(v6.port)/x.jpg"] {
            let result = try await harness.pipeline.thumbnail(for: try ImageSource(url), size: 64)
            #expect(result.servedFrom == .network, "\(url)")
        }
        #expect(v6.requestCount("/x.jpg") == 2)
        await harness.close()
        v6.shutdown()
        shutdown()
    }

    @Test func redirectsToOtherSchemesAreRefused() async throws {
        allowed.route("/to-file") { _ in .respond(status: 302, headers: [("Location", "file:///etc/passwd")], body: Data()) }
        allowed.route("/to-ftp") { _ in .respond(status: 301, headers: [("Location", "ftp://127.0.0.1/x.jpg")], body: Data()) }
        let harness = try PipelineHarness()  // the CLI's policy: everything else allowed
        #expect(await Self.refusal(harness.pipeline, allowed.url("/to-file")) == "it redirects to file:///etc/passwd: the file: scheme is refused (only http and https)")
        #expect(await Self.refusal(harness.pipeline, allowed.url("/to-ftp"))?.contains("the ftp: scheme is refused") == true)
        await harness.close()
        shutdown()
    }

    @Test func localFilesNeedLoopback() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-policy-\(UUID().uuidString).jpg")
        try Fixtures.jpeg.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let harness = try PipelineHarness { $0.sourcePolicy = SourcePolicy(allowLoopback: false) }
        #expect(await Self.refusal(harness.pipeline, file.path) == "local files are not allowed sources")
        await harness.close()
        shutdown()
    }

    @Test func clientsPinnedToAddressesAreBoundedAndReused() async throws {
        let pool = HTTPClientPool(configuration: .init(), capacity: 2)
        for host in ["a.test", "b.test", "c.test", "a.test"] {
            try await pool.withClient(host: host, pinnedTo: IPAddress("127.0.0.1")) { _ in }
            #expect(pool.count <= 2)
        }
        // A client in use is never evicted: the bound is exceeded only while requests hold them.
        try await pool.withClient(host: "d.test", pinnedTo: IPAddress("127.0.0.1")) { _ in
            try await pool.withClient(host: "e.test", pinnedTo: IPAddress("127.0.0.1")) { _ in
                try await pool.withClient(host: "f.test", pinnedTo: IPAddress("127.0.0.1")) { _ in #expect(pool.count == 3) }
            }
        }
        #expect(pool.count == 2)
        await pool.shutdown()
        #expect(pool.count == 0)
        shutdown()
    }
}
