import DiskLru
import Foundation
import ImageDecode
import OriginTestSupport
import Processing
import Testing
@testable import ThumbcacheKit

/// Processed images in the pipeline (`Rendition.processed`): stored in `variants/` beside the source's entry,
/// served from there after a restart, gone with their source and with a changed original, and rendered from the
/// smallest stored ladder thumbnail that covers what the plan reads. Real origin on 127.0.0.1.
@Suite(.serialized) struct VariantStoreTests {
    let server: OriginServer

    init() throws { server = try OriginServer() }

    static func variantFiles(_ harness: PipelineHarness) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(
            atPath: harness.directory.appendingPathComponent("variants").path)) ?? []
        return names.filter { !$0.hasPrefix("journal") }.sorted()
    }

    @Test func aVariantIsStoredReadBackAfterAReopenAndRemovedWithItsSource() async throws {
        server.route("/v.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=3600")], body: Fixtures.jpeg) }
        let harness = try PipelineHarness()
        let source = try ImageSource(server.url("/v.jpg"))
        let options = try ProcessingOptions(parsing: "rs:fill:80:60/g:soea")
        let made = try await harness.pipeline.processed(for: source, options: options)
        #expect(made.rendered && made.width == 80 && made.height == 60 && made.format == .jpeg && made.bytesStored > made.data.count)
        #expect(Self.variantFiles(harness).count == 2, "record and image")

        try await harness.reopen()
        // Another spelling of the same image: its canonical form names the stored variant.
        let again = try await harness.pipeline.processed(for: source, options: try ProcessingOptions(parsing: "resize:fill:80:60:0/gravity:soea/cb:x"))
        #expect(again.servedFrom == .disk && !again.rendered && again.data == made.data)
        #expect(again.contentDigest == SHA256Digest.hex(bytes: made.data))
        #expect(server.requestCount("/v.jpg") == 1)
        // The record is remembered for the entry's state, so the next hit reads only the image; and from the page
        // cache alone, as an event loop reads (just written, so resident).
        let original = try #require(try harness.pipeline.info(for: source)).metadata.original
        let key = VariantStore.key(source: source.cacheKey, variant: harness.pipeline.variantName(
            .processed(CanonicalOptions(options)), FormatRequest(), original: original))
        let variants = try #require(harness.pipeline.store.variants)
        let snapshot = try #require(try variants.cache.snapshot(forKey: key))
        snapshot.close()
        #expect(variants.known.remembered(key)?.sequenceNumber == snapshot.sequenceNumber)
        let resident = harness.pipeline.diskHit(for: source, .processed(CanonicalOptions(options)), read: .residentOnly)
        #expect(resident?.data == made.data && resident?.servedFrom == .disk && resident?.width == 80)

        #expect(try harness.pipeline.remove(source: source))
        #expect(Self.variantFiles(harness).isEmpty)
        await harness.close()
        server.shutdown()
    }

    @Test func aChangedOriginalDropsTheOldVariants() async throws {
        let version = Locked(1)
        server.route("/c.jpg") { _ in
            let current = version.withLock { $0 }
            return .respond(status: 200, headers: [("Cache-Control", "max-age=0"), ("ETag", "\"v\(current)\"")],
                            body: current == 1 ? Fixtures.jpeg : Fixtures.otherJpeg)
        }
        let harness = try PipelineHarness()
        let source = try ImageSource(server.url("/c.jpg"))
        let options = try ProcessingOptions(parsing: "w:50")
        let first = try await harness.pipeline.processed(for: source, options: options)
        let other = try await harness.pipeline.processed(for: source, options: try ProcessingOptions(parsing: "w:40"))
        #expect(first.rendered && other.rendered && Self.variantFiles(harness).count == 4)
        version.withLock { $0 = 2 }
        let second = try await harness.pipeline.processed(for: source, options: options)
        #expect(second.rendered && second.servedFrom == .network && second.data != first.data)
        #expect(Self.variantFiles(harness).count == 2, "only the new original's variant is left")
        await harness.close()
        server.shutdown()
    }

    @Test func theEntriesUseWhatTheVariantsLeaveOfTheDiskBudget() async throws {
        server.route("/b.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=3600")], body: Fixtures.jpeg) }
        let total: Int64 = 8 << 20
        let harness = try PipelineHarness { $0.maxDiskSize = total; $0.maxVariantDiskSize = 2 << 20 }
        let entries = harness.pipeline.store.entries.cache
        #expect(entries.maxSize == total, "no variants yet: the entries may use the whole budget")
        let source = try ImageSource(server.url("/b.jpg"))
        let made = try await harness.pipeline.processed(for: source, options: try ProcessingOptions(parsing: "rs:fill:80:60"))
        let variantBytes = try #require(harness.pipeline.store.variants).cache.size
        #expect(made.rendered && variantBytes > 0 && entries.maxSize == total - variantBytes)

        try await harness.reopen()
        #expect(harness.pipeline.store.entries.cache.maxSize == total - variantBytes, "a restart counts the stored variants")
        #expect(try harness.pipeline.remove(source: source))
        #expect(harness.pipeline.store.entries.cache.maxSize == total)
        await harness.close()
        server.shutdown()
    }

    @Test func withoutAVariantBudgetNothingIsStoredOnDisk() async throws {
        server.route("/m.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=3600")], body: Fixtures.jpeg) }
        let harness = try PipelineHarness { $0.maxVariantDiskSize = 0 }
        let source = try ImageSource(server.url("/m.jpg"))
        let made = try await harness.pipeline.processed(for: source, options: try ProcessingOptions(parsing: "w:30"))
        #expect(made.rendered && made.width == 30)
        #expect(harness.pipeline.store.variants == nil && Self.variantFiles(harness).isEmpty)
        let hit = try await harness.pipeline.processed(for: source, options: try ProcessingOptions(parsing: "w:30"))
        #expect(hit.servedFrom == .memory)
        await harness.close()
        server.shutdown()
    }

    /// Issue 30 item 4: a lossy rung someone else asked for never stands in for a lossless or higher-quality
    /// render. After a 128 px AVIF rung is stored, a PNG and a `q:100` JPEG are the bytes a cache without it
    /// renders from the original; a default-quality JPEG is rendered from the rung (so its bytes differ).
    @Test func aLossyRungNeverStandsInForALosslessOrBetterRender() async throws {
        server.route("/q.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=3600")], body: Fixtures.jpeg) }
        let source = try ImageSource(server.url("/q.jpg"))
        let withRung = try PipelineHarness(), without = try PipelineHarness()
        let rung = try await withRung.pipeline.thumbnail(for: source, size: 128, format: .avif)
        #expect(rung.format == .avif && rung.bytesStored > 0)
        for (list, fromOriginal) in [("w:60/f:png", true), ("w:60/f:jpg/q:100", true), ("w:60/f:jpg", false)] {
            let options = try ProcessingOptions(parsing: list)
            let made = try await withRung.pipeline.processed(for: source, options: options)
            let reference = try await without.pipeline.processed(for: source, options: options)
            #expect(made.rendered && reference.rendered && made.width == 60, "\(list)")
            #expect((made.data == reference.data) == fromOriginal, "\(list): rendered from the \(fromOriginal ? "original" : "rung")")
        }
        #expect(server.requestCount("/q.jpg") == 2)
        await withRung.close()
        await without.close()
        server.shutdown()
    }

    /// The fixture is 227×149: a 64 px rung scales it by 0.28, a 128 px one by 0.56. The rungs are JPEG at the
    /// default quality: they stand in for JPEG and WebP at or below their default quality, never for a PNG or a
    /// higher quality (`StandIn`).
    @Test(arguments: [("w:60", 64), ("w:100", 128), ("rs:fill:50:50", 128), ("w:200", nil), ("w:100/el:1/dpr:3", nil),
                      ("w:60/q:100", nil), ("w:60/f:png", nil), ("w:60/f:webp", 64), ("w:60/fq:jpeg:95", nil),
                      ("w:60/fq:jpeg:50", 64)] as [(String, Int?)])
    func theSmallestRungThatCoversIsTheInput(_ list: String, _ expected: Int?) async throws {
        let harness = try PipelineHarness()
        let original = CacheMetadata.Original(format: "jpeg", width: 227, height: 149, bytes: 1, digest: "d")
        let options = try ProcessingOptions(parsing: list)
        let format = options.outputFormat(for: FormatRequest(), source: original.info, defaults: .preferred(.imgproxy), limits: RenderLimits()).format
        let qualities = harness.pipeline.configuration.formatQuality
        let output = StandIn.Output(format: format, quality: options.quality(for: format, default: { qualities[$0] }))
        let stored = [64, 128].map { CacheMetadata.StoredSize(size: $0, parts: [.init(format: "jpeg", bytes: 100)]) }
        let standIn = try harness.pipeline.standIn(options, output: output, original: original, stored: stored, url: "test")
        #expect(standIn?.size == expected, "\(list)")
        #expect(standIn.map { $0.format == .jpeg } ?? true)
        // A lossless rung stands in for any output it covers in pixels.
        let png = [64, 128].map { CacheMetadata.StoredSize(size: $0, parts: [.init(format: "png", bytes: 100)]) }
        let lossless = try harness.pipeline.standIn(options, output: output, original: original, stored: png, url: "test")
        #expect(lossless?.size == (list.hasPrefix("w:60") ? 64 : expected), "\(list) from PNG rungs")
        await harness.close()
    }

    /// Issue 31: a grey original's WebP rung (RGB, not exactly neutral after lossy 4:2:0) never stands in, so a render
    /// stays grey; its JPEG rung (grey itself) still does.
    @Test func aGreyOriginalsWebPRungNeverStandsIn() async throws {
        let harness = try PipelineHarness()
        let original = CacheMetadata.Original(format: "png", width: 227, height: 149, bytes: 1, digest: "d", grey: true)
        let options = try ProcessingOptions(parsing: "w:60/f:jpg")
        let output = StandIn.Output(format: .jpeg, quality: harness.pipeline.configuration.formatQuality[.jpeg])
        func chosen(_ format: String) throws -> StandIn? {
            try harness.pipeline.standIn(options, output: output, original: original,
                                         stored: [CacheMetadata.StoredSize(size: 64, parts: [.init(format: format, bytes: 100)])], url: "test")
        }
        #expect(try chosen("webp") == nil)
        #expect(try chosen("jpeg") == StandIn(size: 64, format: .jpeg))
        #expect(original.grey == true && CacheMetadata.Original(format: "png", width: 1, height: 1, bytes: 1, digest: "d").grey == nil,
                "recorded only for grey, so colour entries' JSON is unchanged")
        await harness.close()
    }

    /// Issue 31: a stored thumbnail keeps no more than the default metadata (the EXIF copyright), so a render that keeps
    /// more (`sm:0`, `scp:0`) is made from the original, and carries what only the original has.
    @Test func aRenderKeepingMetadataIsMadeFromTheOriginal() async throws {
        let pixels = (0..<(227 * 149 * 3)).map { UInt8(truncatingIfNeeded: $0 % 251) }
        var exif = ImageMetadata(artist: "Ann Artist", copyright: "(c) 2026 Test")
        exif.xmp = Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>".utf8)
        let tagged = try ImageEncoder.encode(PixelBuffer(width: 227, height: 149, channels: 3, pixels: pixels), as: .jpeg, metadata: exif)
        server.route("/t.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=3600")], body: tagged) }
        let source = try ImageSource(server.url("/t.jpg"))
        let harness = try PipelineHarness()
        _ = try await harness.pipeline.thumbnail(for: source, size: 128, format: .jpeg)
        let fromRung = try await harness.pipeline.processed(for: source, options: try ProcessingOptions(parsing: "w:60/f:jpg"))
        let rungMetadata = try ImageDecoder.probe(fromRung.data).metadata
        #expect(rungMetadata.copyright == "(c) 2026 Test" && rungMetadata.xmp == nil)
        let kept = try await harness.pipeline.processed(for: source, options: try ProcessingOptions(parsing: "w:60/f:jpg/sm:0"))
        #expect(try ImageDecoder.probe(kept.data).metadata.xmp == exif.xmp, "the XMP only the original has")
        await harness.close()
        server.shutdown()
    }
}
