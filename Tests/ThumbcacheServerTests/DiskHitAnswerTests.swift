import Foundation
import NIOHTTP1
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// Disk hits over HTTP, from a server whose memory cache keeps nothing: every repeat is read from the disk
/// entry (`ThumbnailPipeline.diskHit`, before the request's deadline is set up) and must be the answer a memory
/// hit would be: the same bytes, ETag and caching headers, HEAD without a body, 304 to a matching condition.
@Suite(.serialized) struct DiskHitAnswerTests {
    static func diskOnlyServer() async throws -> ServerHarness {
        try await ServerHarness(pipeline: { $0.memoryLimits = .init(totalCost: 1, count: 1) })
    }

    @Test func aDiskHitIsTheSameAnswerWithItsHeadAnd304() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await Self.diskOnlyServer()
        let path = server.path(origin.url("/a.jpg"), size: 128, format: .jpeg)
        let first = try await server.request(path)
        #expect(first.status == 200 && first.header("X-Thumbcache") == "network")
        let etag = try #require(first.header("ETag"))

        let hit = try await server.request(path)
        #expect(hit.status == 200 && hit.header("X-Thumbcache") == "disk")
        #expect(hit.body == first.body && hit.header("Content-Length") == String(first.body.count))
        #expect(hit.header("Content-Type") == "image/jpeg" && hit.header("ETag") == etag)
        #expect(hit.header("Last-Modified") == "Tue, 24 Nov 2026 10:00:00 GMT" && hit.header("Vary") == nil)
        let maxAge = hit.header("Cache-Control").flatMap { Int($0.replacingOccurrences(of: "public, max-age=", with: "")) }
        #expect(maxAge.map { (3000...3600).contains($0) } == true, "\(String(describing: hit.header("Cache-Control")))")
        let timing = hit.header("Server-Timing") ?? ""
        #expect(timing.contains("render;dur=") && timing.contains("total;dur=") && !timing.contains("fetch"), "\(timing)")

        let head = try await server.request(path, method: .HEAD)
        #expect(head.status == 200 && head.header("X-Thumbcache") == "disk" && head.body.isEmpty)
        #expect(head.header("Content-Length") == String(first.body.count) && head.header("ETag") == etag)

        let notModified = try await server.request(path, headers: [("If-None-Match", etag)])
        #expect(notModified.status == 304 && notModified.body.isEmpty && notModified.header("X-Thumbcache") == "disk")
        #expect(notModified.header("ETag") == etag && notModified.header("Cache-Control")?.hasPrefix("public, max-age=") == true)
        let changed = try await server.request(path, headers: [("If-None-Match", "\"other\"")])
        #expect(changed.status == 200 && changed.body == first.body)
        #expect(origin.count("/a.jpg") == 1)
        #expect(server.endpoints.pipeline.memory.count == 0, "every answer above came from the disk")
        await server.stop()
        await origin.stop()
    }

    /// A disk hit whose bytes are in the page cache (just written) is answered from the request's bytes, as a
    /// memory hit is, without counting as one; with `Connection: close` the router answers it, the same.
    @Test func aResidentDiskHitIsAnsweredFromTheBytes() async throws {
        let origin = try await TestOrigin()
        origin.image("/c.jpg", Fixtures.jpeg)
        let server = try await Self.diskOnlyServer()
        let path = server.path(origin.url("/c.jpg"), size: 64, format: .jpeg)
        #expect(try await server.request(path).header("X-Thumbcache") == "network")
        let fast = try await server.request(path)
        let routed = try await server.request(path, headers: [("Connection", "close")])
        #expect(fast.header("X-Thumbcache") == "disk" && routed.header("X-Thumbcache") == "disk")
        #expect(routed.body == fast.body && routed.header("ETag") == fast.header("ETag"))
        #expect(server.hitsFromBytes == 0 && server.hitsByRouter == 0, "no memory hit counted")
        await server.stop()
        await origin.stop()
    }

    /// A processed image (imgproxy's options) stored as a variant is a disk hit the same way: read from the page
    /// cache where the request's bytes are read, the same answer as the router's.
    @Test func aStoredVariantIsADiskHitBothWays() async throws {
        let origin = try await TestOrigin()
        origin.image("/v.jpg", Fixtures.jpeg)
        let server = try await Self.diskOnlyServer()
        let path = ProcessingURLTests.path("rs:fill:90:60/g:soea", origin.url("/v.jpg"), ext: "jpg", signer: URLSigner(key: nil))
        let first = try await server.request(path)
        #expect(first.status == 200 && first.header("X-Thumbcache") == "network")
        let fast = try await server.request(path)
        let routed = try await server.request(path, headers: [("Connection", "close")])
        #expect(fast.header("X-Thumbcache") == "disk" && routed.header("X-Thumbcache") == "disk")
        #expect(fast.body == first.body && routed.body == first.body)
        #expect(fast.header("ETag") == first.header("ETag") && routed.header("ETag") == first.header("ETag"))
        // max-age counts down with the clock, so the two answers may be a second apart: each is judged on its own.
        for answer in [fast, routed] {
            let maxAge = answer.header("Cache-Control").flatMap { Int($0.replacingOccurrences(of: "public, max-age=", with: "")) }
            #expect(maxAge.map { (3000...3600).contains($0) } == true, "\(String(describing: answer.header("Cache-Control")))")
            #expect(answer.header("Content-Type") == "image/jpeg")
        }
        #expect(origin.count("/v.jpg") == 1)
        #expect(server.endpoints.pipeline.memory.count == 0, "every repeat came from the disk")
        await server.stop()
        await origin.stop()
    }

    /// A format picked from `Accept` is a disk hit too, and says `Vary: Accept`.
    @Test func aNegotiatedFormatIsADiskHitWithVary() async throws {
        let origin = try await TestOrigin()
        origin.image("/b.jpg", Fixtures.jpeg)
        let server = try await Self.diskOnlyServer()
        let path = server.path(origin.url("/b.jpg"), size: 64)
        let accept = [("Accept", "image/webp,*/*")]
        let first = try await server.request(path, headers: accept)
        #expect(first.status == 200 && first.header("Content-Type") == "image/webp")
        let webp = try await server.request(path, headers: accept)
        #expect(webp.header("X-Thumbcache") == "disk" && webp.body == first.body && webp.header("Vary") == "Accept")
        #expect(webp.header("ETag") == first.header("ETag"))
        let jpeg = try await server.request(path)
        #expect(jpeg.header("X-Thumbcache") == "disk" && jpeg.header("Content-Type") == "image/jpeg", "rendered from the stored original")
        #expect(try await server.request(path).header("X-Thumbcache") == "disk")
        #expect(origin.count("/b.jpg") == 1)
        await server.stop()
        await origin.stop()
    }
}
