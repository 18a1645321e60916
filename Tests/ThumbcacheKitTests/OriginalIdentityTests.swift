import Foundation
import ImageDecode
import OriginTestSupport
import Processing
import Testing
@testable import ThumbcacheKit

/// Everything rendered from an original (ladder thumbnails in its entry, processed images in `variants/`) is
/// served only for that exact original: tied to its SHA-256, not its length, across revalidations and restarts.
/// Real origin on 127.0.0.1.
@Suite(.serialized) struct OriginalIdentityTests {
    let server: OriginServer

    init() throws { server = try OriginServer() }

    /// `Fixtures.jpeg` with another first (DC) quantiser step: a valid JPEG of the same length whose pixels differ.
    static let sameLengthChange: Data = {
        var bytes = [UInt8](Fixtures.jpeg)
        let marker = (0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDB }!
        let dc = marker + 5  // marker (2), length (2), precision and table id (1)
        bytes[dc] = bytes[dc] > 8 ? bytes[dc] / 2 : bytes[dc] * 3
        return Data(bytes)
    }()

    @Test func theChangedFixtureIsAnotherImageOfTheSameLength() throws {
        #expect(Self.sameLengthChange.count == Fixtures.jpeg.count && Self.sameLengthChange != Fixtures.jpeg)
        #expect(try ImageDecoder.decode(Self.sameLengthChange).pixels != ImageDecoder.decode(Fixtures.jpeg).pixels)
    }

    /// The origin changes the image in place (same length); with a new ETag, and with the same one (an origin that
    /// ignores validators and answers 200). Each time the processed image and the ladder thumbnail follow.
    @Test(arguments: [true, false])
    func aSameLengthChangeIsRenderedAgain(newETag: Bool) async throws {
        let version = Locked(1)
        server.route("/s.jpg") { _ in
            let current = version.withLock { $0 }
            return .respond(status: 200, headers: [("Cache-Control", "max-age=3600"),
                                                   ("ETag", newETag ? "\"v\(current)\"" : "\"same\"")],
                            body: current == 1 ? Fixtures.jpeg : Self.sameLengthChange)
        }
        let harness = try PipelineHarness()
        let source = try ImageSource(server.url("/s.jpg"))
        let options = try ProcessingOptions(parsing: "rs:fill:80:60")
        let old = try await harness.pipeline.processed(for: source, options: options)
        let oldThumbnail = try await harness.pipeline.thumbnail(for: source, size: 64)
        #expect(old.rendered && oldThumbnail.rendered)

        version.withLock { $0 = 2 }
        let new = try await harness.pipeline.processed(for: source, options: options, policy: .refresh)
        #expect(new.servedFrom == .network && new.rendered && new.data != old.data)
        let newThumbnail = try await harness.pipeline.thumbnail(for: source, size: 64, policy: .refresh)
        #expect(newThumbnail.data != oldThumbnail.data)

        // After a restart, from disk: the new original's renders, never the old ones.
        try await harness.reopen()
        let stored = try await harness.pipeline.processed(for: source, options: options)
        #expect(stored.servedFrom == .disk && stored.data == new.data)
        let storedThumbnail = try await harness.pipeline.thumbnail(for: source, size: 64)
        #expect(storedThumbnail.servedFrom == .disk && storedThumbnail.data == newThumbnail.data)
        await harness.close()
        server.shutdown()
    }

    /// A render of the old original that finishes after the new original is stored writes its variant under the
    /// same name (the race the byte count could not catch). Neither a disk hit, the full path, nor a restart and
    /// a revalidation (304) serves it: its record names the old original's digest.
    @Test func aVariantOfTheOldOriginalStoredLateIsNeverServed() async throws {
        let version = Locked(1)
        server.route("/r.jpg") { request in
            let current = version.withLock { $0 }
            if request.headers["if-none-match"] == "\"v\(current)\"" {
                return .respond(status: 304, headers: [("Cache-Control", "max-age=0"), ("ETag", "\"v\(current)\"")], body: Data())
            }
            return .respond(status: 200, headers: [("Cache-Control", "max-age=3600"), ("ETag", "\"v\(current)\"")],
                            body: current == 1 ? Fixtures.jpeg : Self.sameLengthChange)
        }
        let harness = try PipelineHarness()
        let source = try ImageSource(server.url("/r.jpg"))
        let options = try ProcessingOptions(parsing: "w:50")
        let old = try await harness.pipeline.processed(for: source, options: options)
        let variants = try #require(harness.pipeline.store.variants)
        let original = try #require(try harness.pipeline.info(for: source)).metadata.original
        let name = harness.pipeline.variantName(.processed(CanonicalOptions(options)), FormatRequest(), original: original)
        let oldRecord = try #require(try variants.stored(source: source.cacheKey, variant: name,
                                                         originalDigest: SHA256Digest.hex(bytes: Fixtures.jpeg))).record

        version.withLock { $0 = 2 }
        let new = try await harness.pipeline.processed(for: source, options: options, policy: .refresh)
        #expect(new.rendered && new.data != old.data)
        // The late render of the old original lands now.
        try variants.save(old.data, record: oldRecord)

        #expect(harness.pipeline.diskHit(for: source, .processed(CanonicalOptions(options)))?.data != old.data)
        try await harness.reopen()
        let afterRestart = try await harness.pipeline.processed(for: source, options: options)
        #expect(afterRestart.data == new.data && afterRestart.data != old.data)
        // Stale now and revalidated with a 304: the entry keeps the new original; its render, not the old one.
        try await harness.reopen()
        let revalidated = try await harness.pipeline.processed(for: source, options: options, policy: .refresh)
        #expect(revalidated.servedFrom == .revalidated && revalidated.data == new.data)
        #expect(server.requestCount("/r.jpg") == 3)
        await harness.close()
        server.shutdown()
    }

    /// Ladder thumbnails live in the original's entry; one made from another original is not added to it, while
    /// one made from the same original still is after a revalidation changed the entry's headers.
    @Test func aThumbnailJoinsOnlyTheEntryOfItsOwnOriginal() async throws {
        let harness = try PipelineHarness()
        let store = harness.pipeline.store.entries
        let digest = SHA256Digest.hex(bytes: Fixtures.jpeg)
        let metadata = CacheMetadata(url: "http://127.0.0.1/t.jpg", headers: [:], requestTime: Date(), responseTime: Date(),
                                     original: .init(format: "jpeg", width: 227, height: 149, bytes: Fixtures.jpeg.count,
                                                     digest: digest))
        try store.save(key: "t", metadata: metadata, original: FetchedOriginal(data: Fixtures.jpeg), thumbnail: nil)
        let thumbnail = StoredThumbnail(size: 64, format: .jpeg, data: Data([0xFF, 0xD8, 0xFF]))
        #expect(try store.addThumbnail(key: "t", madeFrom: SHA256Digest.hex(bytes: Self.sameLengthChange), thumbnail: thumbnail) == 0)
        #expect(try store.entry(forKey: "t")?.metadata.thumbnails.isEmpty == true)

        var revalidated = metadata
        revalidated.responseTime += 60
        revalidated.headers["etag"] = "\"v2\""
        try store.updateMetadata(key: "t", revalidated)
        #expect(try store.addThumbnail(key: "t", madeFrom: digest, thumbnail: thumbnail) > 0)
        #expect(try store.entry(forKey: "t")?.metadata.thumbnailSizes == [64])
        await harness.close()
    }

    /// A revalidation answered for the old original (a 304 that crossed a new download, in this process or
    /// another) must not put the old original's metadata, digest included, on the new one; and one answered for the
    /// stored original keeps the thumbnails added while it was out.
    @Test func aRevalidationWritesOnlyOverTheOriginalItWasFor() async throws {
        let harness = try PipelineHarness()
        let store = harness.pipeline.store.entries
        func metadata(_ bytes: Data, at time: Date) -> CacheMetadata {
            CacheMetadata(url: "http://127.0.0.1/u.jpg", headers: ["etag": "\"1\""], requestTime: time, responseTime: time,
                          original: .init(format: "jpeg", width: 227, height: 149, bytes: bytes.count,
                                          digest: SHA256Digest.hex(bytes: bytes)))
        }
        let old = metadata(Fixtures.jpeg, at: Date(timeIntervalSince1970: 1_000))
        try store.save(key: "u", metadata: old, original: FetchedOriginal(data: Fixtures.jpeg), thumbnail: nil)
        let thumbnail = StoredThumbnail(size: 64, format: .jpeg, data: Data([0xFF, 0xD8, 0xFF]))
        #expect(try store.addThumbnail(key: "u", madeFrom: old.original.digest, thumbnail: thumbnail) > 0)
        var revalidated = old
        revalidated.responseTime += 60
        #expect(try store.updateMetadata(key: "u", revalidated))
        #expect(try store.entry(forKey: "u")?.metadata.thumbnailSizes == [64], "the thumbnail added meanwhile is kept")

        let new = metadata(Self.sameLengthChange, at: Date(timeIntervalSince1970: 2_000))
        try store.save(key: "u", metadata: new, original: FetchedOriginal(data: Self.sameLengthChange), thumbnail: nil)
        revalidated.responseTime += 60
        #expect(try !store.updateMetadata(key: "u", revalidated))
        let current = try #require(try store.entry(forKey: "u"))
        #expect(current.metadata.original.digest == new.original.digest && current.metadata.responseTime == 2_000)
        current.snapshot.close()
        await harness.close()
    }

    /// Holds the render it is armed for until released; every other render runs at once.
    final class HoldingGate: RenderGate {
        private let state = Locked<(armed: Bool, held: CheckedContinuation<Void, Never>?)>((false, nil))

        func arm() { state.withLock { $0.armed = true } }
        var holding: Bool { state.withLock { $0.held != nil } }
        func release() {
            state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.held = nil }
                return state.held
            }?.resume()
        }

        func run<T: Sendable>(reserving bytes: Int, of budget: DecodeBudget?, admission: RenderAdmission?,
                              _ body: @escaping @Sendable () throws(PipelineError) -> T) async throws(PipelineError) -> T {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let held = state.withLock { state -> Bool in
                    guard state.armed else { return false }
                    (state.armed, state.held) = (false, continuation)
                    return true
                }
                if !held { continuation.resume() }
            }
            return try body()
        }
    }

    /// A render of the old original that ends after a new one was stored answers its own waiter, but is kept
    /// neither in memory nor (`aVariantOfTheOldOriginalStoredLateIsNeverServed`) on disk.
    @Test func aLateRenderOfTheOldOriginalIsNotKeptInMemory() async throws {
        let version = Locked(1)
        server.route("/m.jpg") { _ in
            let current = version.withLock { $0 }
            return .respond(status: 200, headers: [("Cache-Control", "max-age=3600"), ("ETag", "\"v\(current)\"")],
                            body: current == 1 ? Fixtures.jpeg : Self.sameLengthChange)
        }
        let gate = HoldingGate()
        let harness = try PipelineHarness { $0.renderGate = gate }
        let pipeline = harness.pipeline
        let source = try ImageSource(server.url("/m.jpg"))
        _ = try await pipeline.processed(for: source, options: try ProcessingOptions(parsing: "w:30"))  // v1 stored
        let options = try ProcessingOptions(parsing: "w:50")
        gate.arm()
        let late = Task { try await pipeline.processed(for: source, options: options) }
        #expect(await RenderCancellationTests.eventually(within: 600) { gate.holding })
        version.withLock { $0 = 2 }
        let new = try await pipeline.processed(for: source, options: try ProcessingOptions(parsing: "w:40"), policy: .refresh)
        #expect(new.servedFrom == .network)
        gate.release()
        let old = try await late.value
        #expect(old.rendered && pipeline.memoryHit(for: source, .processed(CanonicalOptions(options))) == nil)
        let again = try await pipeline.processed(for: source, options: options)
        #expect(again.rendered && again.data != old.data)
        await harness.close()
        server.shutdown()
    }
}
