import Foundation
import OriginTestSupport
import Testing
@testable import ThumbcacheKit

/// Owner-chosen keys (`CacheKeyRule`): presigned URLs of one object share one entry, against a real origin.
@Suite(.serialized) struct CacheKeyRuleTests {
    static let rule = CacheKeyRule(ignoredQueryParameters: ["X-Amz-*", "token"])

    static func presigned(_ server: OriginServer, signature: String, extra: String = "") -> String {
        server.url("/bucket/photo.jpg?X-Amz-Date=20261128T0600Z&v=1&X-Amz-Signature=\(signature)\(extra)")
    }

    /// Each URL (its path and query, as the origin routes them) answers the fixture, fresh for an hour.
    static func serveFresh(_ server: OriginServer, _ urls: [String]) {
        for url in urls {
            server.route(String(url.dropFirst(server.url("").count))) { _ in
                .respond(status: 200, headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "max-age=3600")],
                         body: Fixtures.jpeg)
            }
        }
    }

    @Test func globsMatchNamesNotValues() {
        #expect(Self.rule.ignores("X-Amz-Signature") && Self.rule.ignores("X-Amz-") && Self.rule.ignores("token"))
        #expect(!Self.rule.ignores("x-amz-signature"), "names are case-sensitive")
        #expect(!Self.rule.ignores("tokens") && !Self.rule.ignores("v"))
        #expect(CacheKeyRule.glob("a*b*c", matches: "aXXbYc") && !CacheKeyRule.glob("a*b*c", matches: "aXXcYb"))
        #expect(Self.rule.keyedForm(of: "https://h/p?X-Amz-A=1&v=2&token=x") == "https://h/p?v=2")
        #expect(Self.rule.keyedForm(of: "https://h/p?X-Amz-A=1&token=x") == "https://h/p")
        #expect(CacheKeyRule.exact.key(forNormalized: "https://h/p?a=1") == SHA256Digest.hex("https://h/p?a=1"))
    }

    @Test func presignedURLsOfOneObjectShareOneEntryAndTheOriginGetsTheirQuery() async throws {
        let server = try OriginServer()
        let first = Self.presigned(server, signature: "aaaa"), second = Self.presigned(server, signature: "bbbb")
        Self.serveFresh(server, [first, second])
        let harness = try PipelineHarness { $0.cacheKeyRule = Self.rule }
        let one = try await harness.pipeline.thumbnail(for: try ImageSource(first), size: 64)
        let two = try await harness.pipeline.thumbnail(for: try ImageSource(second), size: 64)
        #expect(one.servedFrom == .network && two.servedFrom == .memory)
        #expect(one.cacheKey == two.cacheKey)
        #expect(server.totalRequests == 1, "\(server.requestedPaths)")
        #expect(server.requestedPaths == [String(first.dropFirst(server.url("").count))], "the origin got the signed query")
        #expect(harness.pipeline.statistics().entries == 1)
        // Another process (empty memory) finds the entry under the other signature: a disk hit, no request.
        try await harness.reopen()
        let disk = try await harness.pipeline.thumbnail(for: try ImageSource(second), size: 64)
        #expect(disk.servedFrom == .disk && server.totalRequests == 1)
        await harness.close()
        server.shutdown()
    }

    @Test func processedImagesOfPresignedURLsShareTheEntryToo() async throws {
        let server = try OriginServer()
        let first = Self.presigned(server, signature: "aaaa"), second = Self.presigned(server, signature: "bbbb")
        Self.serveFresh(server, [first, second])
        let harness = try PipelineHarness { $0.cacheKeyRule = Self.rule }
        let options = try ProcessingOptions(parsing: "rs:fill:80:60")
        let one = try await harness.pipeline.processed(for: try ImageSource(first), options: options)
        let two = try await harness.pipeline.processed(for: try ImageSource(second), options: options)
        #expect(one.servedFrom == .network && two.servedFrom == .memory && one.cacheKey == two.cacheKey)
        try await harness.reopen()
        let disk = try await harness.pipeline.processed(for: try ImageSource(second), options: options)
        #expect(disk.servedFrom == .disk && !disk.rendered)
        #expect(server.totalRequests == 1, "\(server.requestedPaths)")
        await harness.close()
        server.shutdown()
    }

    @Test func aRevalidationSendsTheNewSignatureAndKeepsOneEntry() async throws {
        let server = try OriginServer()
        let first = Self.presigned(server, signature: "aaaa"), second = Self.presigned(server, signature: "bbbb")
        for url in [first, second] {
            server.route(String(url.dropFirst(server.url("").count))) { request in
                if request.headers["if-none-match"] == "\"p1\"" {
                    return .respond(status: 304, headers: [("ETag", "\"p1\""), ("Cache-Control", "max-age=0")], body: Data())
                }
                return .respond(status: 200, headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "max-age=0"),
                                                       ("ETag", "\"p1\"")], body: Fixtures.jpeg)
            }
        }
        let harness = try PipelineHarness { $0.cacheKeyRule = Self.rule }
        _ = try await harness.pipeline.thumbnail(for: try ImageSource(first), size: 64)
        let again = try await harness.pipeline.thumbnail(for: try ImageSource(second), size: 64)
        #expect(again.servedFrom == .revalidated)
        let prefix = server.url("").count
        #expect(server.requestedPaths == [String(first.dropFirst(prefix)), String(second.dropFirst(prefix))],
                "asked twice, each time with the query it was given")
        #expect(server.requests(String(second.dropFirst(prefix))).first?.headers["if-none-match"] == "\"p1\"")
        #expect(harness.pipeline.statistics().entries == 1)
        await harness.close()
        server.shutdown()
    }

    @Test func aParameterNotIgnoredStillSeparatesEntries() async throws {
        let server = try OriginServer()
        let one = Self.presigned(server, signature: "aaaa", extra: "&w=1"), two = Self.presigned(server, signature: "aaaa", extra: "&w=2")
        Self.serveFresh(server, [one, two])
        let harness = try PipelineHarness { $0.cacheKeyRule = Self.rule }
        let a = try await harness.pipeline.thumbnail(for: try ImageSource(one), size: 64)
        let b = try await harness.pipeline.thumbnail(for: try ImageSource(two), size: 64)
        #expect(a.cacheKey != b.cacheKey && b.servedFrom == .network)
        #expect(server.totalRequests == 2 && harness.pipeline.statistics().entries == 2)
        // Without the rule, the two signatures are two entries.
        let plain = try PipelineHarness()
        _ = try await plain.pipeline.thumbnail(for: try ImageSource(Self.presigned(server, signature: "aaaa", extra: "&w=1")), size: 64)
        Self.serveFresh(server, [Self.presigned(server, signature: "cccc", extra: "&w=1")])
        let other = try await plain.pipeline.thumbnail(for: try ImageSource(Self.presigned(server, signature: "cccc", extra: "&w=1")), size: 64)
        #expect(other.servedFrom == .network && plain.pipeline.statistics().entries == 2)
        await plain.close()
        await harness.close()
        server.shutdown()
    }
}
