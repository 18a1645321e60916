import Foundation
import OriginTestSupport
import Testing
@testable import ThumbcacheKit

/// `ThumbnailPipeline.original(for:)`: the stored original, as URLCache's cached response, against a real origin.
@Suite(.serialized) struct CachedOriginalTests {
    @Test func theOriginalsBytesComeFromTheOriginOnceThenFromTheCache() async throws {
        let server = try OriginServer()
        server.route("/o.png") { _ in
            .respond(status: 200, headers: [("Content-Type", "image/png"), ("Cache-Control", "max-age=3600")], body: Fixtures.png)
        }
        let harness = try PipelineHarness()
        let source = try ImageSource(server.url("/o.png"))
        let first = try await harness.pipeline.original(for: source)
        #expect(first.data == Fixtures.png && first.contentType == "image/png" && first.servedFrom == .network)
        #expect(first.freshUntil > Date())
        let second = try await harness.pipeline.original(for: source)
        #expect(second.data == Fixtures.png && second.servedFrom == .disk)
        #expect(server.requestCount("/o.png") == 1)
        // Stored without a thumbnail: a new process finds it, and a thumbnail of it needs no request either.
        try await harness.reopen()
        let reopened = try await harness.pipeline.original(for: source)
        #expect(reopened.data == Fixtures.png && reopened.servedFrom == .disk)
        let thumbnail = try await harness.pipeline.thumbnail(for: source, size: 64)
        #expect(thumbnail.servedFrom == .disk && thumbnail.rendered)
        #expect(server.requestCount("/o.png") == 1)
        await harness.close()
        server.shutdown()
    }

    @Test func aStaleOriginalIsRevalidated() async throws {
        let server = try OriginServer()
        server.route("/s.jpg") { request in
            if request.headers["if-none-match"] == "\"s1\"" {
                return .respond(status: 304, headers: [("ETag", "\"s1\""), ("Cache-Control", "max-age=0")], body: Data())
            }
            return .respond(status: 200, headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "max-age=0"), ("ETag", "\"s1\"")],
                            body: Fixtures.jpeg)
        }
        let harness = try PipelineHarness()
        let source = try ImageSource(server.url("/s.jpg"))
        _ = try await harness.pipeline.thumbnail(for: source, size: 64)
        let original = try await harness.pipeline.original(for: source)
        #expect(original.data == Fixtures.jpeg && original.servedFrom == .revalidated && original.contentType == "image/jpeg")
        #expect(server.requests("/s.jpg").map { $0.headers["if-none-match"] } == [nil, "\"s1\""])
        await harness.close()
        server.shutdown()
    }
}
