import Foundation
import ImageDecode
import OriginTestSupport
import Testing
@testable import ThumbcacheKit

/// `ThumbnailPipeline.diskHit`: a fresh stored thumbnail read alone, from what `KnownEntries` remembers of its
/// entry, against a real origin on 127.0.0.1. What it remembers must never outlive the entry's state.
@Suite(.serialized) struct DiskHitTests {
    let server: OriginServer

    init() throws { server = try OriginServer() }

    static func image(_ headers: [(String, String)], body: Data = Fixtures.jpeg) -> OriginServer.Reply {
        .respond(status: 200, headers: [("Content-Type", "image/jpeg")] + headers, body: body)
    }

    /// `path` served with `cacheControl` and an ETag, answering a request with that ETag 304 with `after304`;
    /// its 64 px thumbnail stored, and the pipeline reopened (nothing in memory, nothing remembered).
    func storedThenReopened(_ path: String, cacheControl: String, after304: String) async throws -> (PipelineHarness, ImageSource) {
        server.route(path) { request in
            if request.headers["if-none-match"] == "\"e\"" {
                return .respond(status: 304, headers: [("ETag", "\"e\""), ("Cache-Control", after304)], body: Data())
            }
            return Self.image([("Cache-Control", cacheControl), ("ETag", "\"e\"")])
        }
        let harness = try PipelineHarness()
        let source = try ImageSource(server.url(path))
        _ = try await harness.pipeline.thumbnail(for: source, size: 64)
        try await harness.reopen()
        return (harness, source)
    }

    @Test func aFreshStoredThumbnailIsReadAloneWithWhatItsAnswerNeeds() async throws {
        server.route("/a.jpg") { _ in
            Self.image([("Cache-Control", "max-age=3600"), ("Last-Modified", "Tue, 24 Nov 2026 10:00:00 GMT")])
        }
        let harness = try PipelineHarness()
        let source = try ImageSource(server.url("/a.jpg"))
        let rendered = try await harness.pipeline.thumbnail(for: source, size: 128)
        try await harness.reopen()
        #expect(harness.pipeline.diskHit(for: source, .thumbnail(size: 256)) == nil, "a size not stored")
        #expect(harness.pipeline.diskHit(for: source, .thumbnail(size: 128, fit: .cover)) == nil, "cover is kept in memory only")
        #expect(harness.pipeline.diskHit(for: source, .thumbnail(size: 128), format: .webp) == nil, "a format not stored")
        let hit = try #require(harness.pipeline.diskHit(for: source, .thumbnail(size: 128)))
        #expect(hit.servedFrom == .disk && !hit.rendered && hit.bytesDownloaded == 0)
        #expect(hit.data == rendered.data && hit.format == .jpeg)
        #expect(hit.width == rendered.width && hit.height == rendered.height)
        #expect(hit.contentDigest == SHA256Digest.hex(bytes: rendered.data), "the ETag's digest")
        #expect(hit.lastModified == HTTPDate.parse("Tue, 24 Nov 2026 10:00:00 GMT"))
        let freshFor = try #require(hit.freshUntil).timeIntervalSinceNow
        #expect((3000...3600).contains(freshFor), "\(freshFor)")
        let known = try #require(harness.pipeline.store.entries.known.known(source.cacheKey))
        #expect(known.thumbnails.map(\.format) == [.jpeg] && known.thumbnails.first?.digest == hit.contentDigest)
        #expect(harness.pipeline.memoryHit(for: source, .thumbnail(size: 128))?.data == rendered.data, "kept in memory, as any hit")
        // From the record: the same answer again; and from the page cache alone (just written, so resident).
        let again = try #require(harness.pipeline.diskHit(for: source, .thumbnail(size: 128)))
        #expect(again.data == hit.data && again.contentDigest == hit.contentDigest && again.width == hit.width)
        #expect(harness.pipeline.diskHit(for: source, .thumbnail(size: 128), read: .residentOnly)?.data == hit.data)
        try await harness.reopen()
        #expect(try await harness.pipeline.thumbnail(for: source, size: 128).servedFrom == .disk, "get takes the same path")
        #expect(server.requestCount("/a.jpg") == 1)
        await harness.close()
        server.shutdown()
    }

    /// A new thumbnail in the entry (a commit) makes a new state: the next hit reads the metadata again.
    @Test func aThumbnailAddedToTheEntryIsFoundAtTheNextHit() async throws {
        server.route("/b.jpg") { _ in Self.image([("Cache-Control", "max-age=3600")]) }
        let harness = try PipelineHarness()
        let source = try ImageSource(server.url("/b.jpg"))
        _ = try await harness.pipeline.thumbnail(for: source, size: 128)
        try await harness.reopen()
        _ = try #require(harness.pipeline.diskHit(for: source, .thumbnail(size: 128)))
        let before = try #require(harness.pipeline.store.entries.known.known(source.cacheKey))
        let webp = try await harness.pipeline.thumbnail(for: source, size: 128, format: .webp)
        #expect(webp.servedFrom == .disk && webp.rendered)
        let hit = try #require(harness.pipeline.diskHit(for: source, .thumbnail(size: 128), format: .webp))
        #expect(hit.format == .webp && hit.data == webp.data)
        #expect(harness.pipeline.diskHit(for: source, .thumbnail(size: 128))?.format == .jpeg, "the JPEG beside it is still served")
        let after = try #require(harness.pipeline.store.entries.known.known(source.cacheKey))
        #expect(after.sequenceNumber != before.sequenceNumber && after.metadata.formats(ofSize: 128) == ["jpeg", "webp"])
        await harness.close()
        server.shutdown()
    }

    /// A 304 that changes the caching headers is a commit too: `no-cache` now, so no more disk hits.
    @Test func newHeadersFromARevalidationDecideTheNextHit() async throws {
        let (harness, source) = try await storedThenReopened("/c.jpg", cacheControl: "max-age=3600", after304: "no-cache")
        _ = try #require(harness.pipeline.diskHit(for: source, .thumbnail(size: 64)))
        #expect(try await harness.pipeline.thumbnail(for: source, size: 64, policy: .refresh).servedFrom == .revalidated)
        harness.pipeline.memory.removeAll()
        #expect(harness.pipeline.diskHit(for: source, .thumbnail(size: 64)) == nil, "revalidated before every use now")
        #expect(try await harness.pipeline.thumbnail(for: source, size: 64).servedFrom == .revalidated)
        #expect(server.requestCount("/c.jpg") == 3)
        await harness.close()
        server.shutdown()
    }

    /// A stale entry is no disk hit; after its 304 with a new lifetime it is one again.
    @Test func aStaleEntryIsRevalidatedThenHitAgain() async throws {
        let (harness, source) = try await storedThenReopened("/d.jpg", cacheControl: "max-age=0", after304: "max-age=3600")
        #expect(harness.pipeline.diskHit(for: source, .thumbnail(size: 64)) == nil)
        #expect(try await harness.pipeline.thumbnail(for: source, size: 64).servedFrom == .revalidated)
        harness.pipeline.memory.removeAll()
        #expect(harness.pipeline.diskHit(for: source, .thumbnail(size: 64))?.servedFrom == .disk)
        #expect(server.requestCount("/d.jpg") == 2)
        await harness.close()
        server.shutdown()
    }

    @Test func aRemovedEntryIsNoLongerADiskHit() async throws {
        server.route("/e.jpg") { _ in Self.image([("Cache-Control", "max-age=3600")]) }
        let harness = try PipelineHarness()
        let source = try ImageSource(server.url("/e.jpg"))
        _ = try await harness.pipeline.thumbnail(for: source, size: 64)
        _ = try #require(harness.pipeline.diskHit(for: source, .thumbnail(size: 64)))
        #expect(try harness.pipeline.remove(source: source))
        #expect(harness.pipeline.diskHit(for: source, .thumbnail(size: 64)) == nil)
        #expect(try await harness.pipeline.thumbnail(for: source, size: 64).servedFrom == .network)
        await harness.close()
        server.shutdown()
    }

    /// Two processes on one directory (`LockMode.perAccess`, as parallel `thumbcache get`s): a thumbnail the
    /// other one added is found, though this one remembered the entry without it.
    @Test func anotherProcesssChangeIsSeen() async throws {
        server.route("/f.jpg") { _ in Self.image([("Cache-Control", "max-age=3600")]) }
        let first = try PipelineHarness { $0.lockMode = .perAccess }
        let second = try ThumbnailPipeline(configuration: first.pipeline.configuration)
        let source = try ImageSource(server.url("/f.jpg"))
        _ = try await first.pipeline.thumbnail(for: source, size: 64)
        first.pipeline.memory.removeAll()
        _ = try #require(first.pipeline.diskHit(for: source, .thumbnail(size: 64)))
        #expect(first.pipeline.diskHit(for: source, .thumbnail(size: 64), format: .png) == nil)
        let png = try await second.thumbnail(for: source, size: 64, format: .png)
        #expect(png.servedFrom == .disk && png.rendered)
        #expect(first.pipeline.diskHit(for: source, .thumbnail(size: 64), format: .png)?.data == png.data)
        await second.close()
        await first.close()
        server.shutdown()
    }
}
