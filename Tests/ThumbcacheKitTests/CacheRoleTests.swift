import Foundation
import OriginTestSupport
import Testing
@testable import ThumbcacheKit

/// Issue 23 §3: a shared cache (RFC 9111 §3) keeps nothing the origin marked `private` or `no-store`, nor an
/// answer that sets a cookie, and reads `s-maxage`; a private cache (the CLI) keeps `private` answers as before.
@Suite(.serialized) struct CacheRoleTests {
    let server: OriginServer

    init() throws {
        server = try OriginServer()
        let routes: [(String, [(String, String)])] = [
            ("/private.jpg", [("Cache-Control", "private, max-age=600")]),
            ("/private-upper.jpg", [("Cache-Control", "max-age=600, PRIVATE")]),
            ("/private-field.jpg", [("Cache-Control", "max-age=600, private=\"X-Token\"")]),
            ("/no-store.jpg", [("Cache-Control", "no-store")]),
            ("/no-store-with-age.jpg", [("Cache-Control", "public, max-age=600"), ("Cache-Control", "no-store")]),
            ("/cookie.jpg", [("Cache-Control", "public, max-age=600"), ("Set-Cookie", "session=abc; Path=/")]),
            ("/cookie-lower.jpg", [("Cache-Control", "max-age=600"), ("set-cookie", "a=b")]),
            ("/public.jpg", [("Cache-Control", "public, max-age=600")]),
            ("/s-maxage.jpg", [("Cache-Control", "max-age=600, s-maxage=0")]),
        ]
        for (path, headers) in routes {
            server.route(path) { _ in PipelineHTTPTests.image(headers) }
        }
    }

    static let uncacheable: [(String, Uncacheable)] = [
        ("/private.jpg", .privateResponse), ("/private-upper.jpg", .privateResponse), ("/private-field.jpg", .privateResponse),
        ("/no-store.jpg", .noStore), ("/no-store-with-age.jpg", .noStore), ("/cookie.jpg", .setsCookie),
        ("/cookie-lower.jpg", .setsCookie),
    ]

    @Test func aSharedCacheKeepsNothingMeantForOneClient() async throws {
        let harness = try PipelineHarness { $0.cacheRole = .shared(ignoringSetCookie: false) }
        for (path, reason) in Self.uncacheable {
            let source = try ImageSource(server.url(path))
            for round in 1...2 {
                let result = try await harness.pipeline.thumbnail(for: source, size: 64)
                #expect(result.servedFrom == .network && result.uncacheable == reason, "\(path) #\(round): \(result.servedFrom)")
            }
            #expect(server.requestCount(path) == 2, "\(path): neither memory nor disk kept it")
            #expect(try harness.pipeline.info(for: source) == nil, "\(path)")
        }
        let kept = try ImageSource(server.url("/public.jpg"))
        _ = try await harness.pipeline.thumbnail(for: kept, size: 64)
        let again = try await harness.pipeline.thumbnail(for: kept, size: 64)
        #expect(again.servedFrom == .memory && again.uncacheable == nil)
        #expect(harness.entryFiles.count > 0)
        await harness.close()
        server.shutdown()
    }

    @Test func aSharedCacheReadsSMaxage() async throws {
        let shared = try PipelineHarness { $0.cacheRole = .shared(ignoringSetCookie: false) }
        let source = try ImageSource(server.url("/s-maxage.jpg"))
        _ = try await shared.pipeline.thumbnail(for: source, size: 64)
        try await shared.reopen()
        #expect(try await shared.pipeline.thumbnail(for: source, size: 64).servedFrom == .network, "s-maxage=0: stale at once")
        #expect(try shared.pipeline.info(for: source)?.freshness.source == "s-maxage")
        await shared.close()
        let privateCache = try PipelineHarness()
        _ = try await privateCache.pipeline.thumbnail(for: source, size: 64)
        try await privateCache.reopen()
        #expect(try await privateCache.pipeline.thumbnail(for: source, size: 64).servedFrom == .disk, "a private cache reads max-age")
        await privateCache.close()
        server.shutdown()
    }

    @Test func cookiesCanBeIgnoredAsNginxAllows() async throws {
        let harness = try PipelineHarness { $0.cacheRole = .shared(ignoringSetCookie: true) }
        let source = try ImageSource(server.url("/cookie.jpg"))
        #expect(try await harness.pipeline.thumbnail(for: source, size: 64).uncacheable == nil)
        #expect(try await harness.pipeline.thumbnail(for: source, size: 64).servedFrom == .memory)
        let stored = try #require(try harness.pipeline.info(for: source))
        #expect(!String(decoding: stored.metadata.encoded(), as: UTF8.self).contains("session=abc"), "the cookie itself is never stored")
        let privately = try ImageSource(server.url("/private.jpg"))
        #expect(try await harness.pipeline.thumbnail(for: privately, size: 64).uncacheable == .privateResponse)
        await harness.close()
        server.shutdown()
    }

    @Test func aPrivateCacheKeepsPrivateAnswersAndCookiesAsBefore() async throws {
        let harness = try PipelineHarness()
        for path in ["/private.jpg", "/cookie.jpg"] {
            let source = try ImageSource(server.url(path))
            #expect(try await harness.pipeline.thumbnail(for: source, size: 64).uncacheable == nil, "\(path)")
            #expect(try await harness.pipeline.thumbnail(for: source, size: 64).servedFrom == .memory, "\(path)")
        }
        let noStore = try ImageSource(server.url("/no-store.jpg"))
        #expect(try await harness.pipeline.thumbnail(for: noStore, size: 64).uncacheable == .noStore)
        await harness.close()
        server.shutdown()
    }

    /// A stored entry whose revalidation comes back `private` is dropped, not refreshed.
    @Test func aRevalidationThatTurnsPrivateDropsTheEntry() async throws {
        let turned = Locked(false)
        server.route("/turns.jpg") { request in
            if turned.withLock({ $0 }) {
                return request.headers["if-none-match"] == "\"t\""
                    ? .respond(status: 304, headers: [("Cache-Control", "private, max-age=600"), ("ETag", "\"t\"")], body: Data())
                    : PipelineHTTPTests.image([("Cache-Control", "private, max-age=600"), ("ETag", "\"t\"")])
            }
            return PipelineHTTPTests.image([("Cache-Control", "max-age=0"), ("ETag", "\"t\"")])
        }
        let harness = try PipelineHarness { $0.cacheRole = .shared(ignoringSetCookie: false) }
        let source = try ImageSource(server.url("/turns.jpg"))
        _ = try await harness.pipeline.thumbnail(for: source, size: 64)
        #expect(try harness.pipeline.info(for: source) != nil)
        turned.withLock { $0 = true }
        let revalidated = try await harness.pipeline.thumbnail(for: source, size: 64)
        #expect(revalidated.servedFrom == .revalidated && revalidated.uncacheable == .privateResponse)
        #expect(try harness.pipeline.info(for: source) == nil)
        await harness.close()
        server.shutdown()
    }
}
