import DiskLru
import Foundation
import ImageDecode
import OriginTestSupport
import Testing
@testable import ThumbcacheKit

/// Several formats per ladder size in the source's one DiskLru entry (issue 12 §3), against a real origin on
/// 127.0.0.1, and what happens to a cache directory of the previous layout (appVersion 2).
@Suite(.serialized) struct FormatStoreTests {
    let server: OriginServer

    init() throws { server = try OriginServer() }

    static let formats: [ImageFormat] = [.jpeg, .webp, .avif]

    /// Gets 128 px in each of `formats`, all rendered, and returns the bytes per format.
    static func renderEach(_ pipeline: ThumbnailPipeline, _ source: ImageSource) async throws -> [ImageFormat: Data] {
        var first: [ImageFormat: Data] = [:]
        for format in formats {
            let result = try await pipeline.thumbnail(for: source, size: 128, format: format)
            #expect(result.rendered && result.format == format && ImageFormat.sniff(result.data) == format)
            #expect(result.bytesStored > 0, "\(format) of a ladder size is stored")
            first[format] = result.data
        }
        return first
    }

    @Test func webpAndAvifAreStoredBesideTheJpegAndServedFromDisk() async throws {
        server.route("/f.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=3600")], body: Fixtures.jpeg) }
        let harness = try PipelineHarness()
        let source = try ImageSource(server.url("/f.jpg"))
        let first = try await Self.renderEach(harness.pipeline, source)
        let metadata = try #require(try harness.pipeline.info(for: source)).metadata
        #expect(metadata.thumbnailSizes == [128] && metadata.formats(ofSize: 128) == ["jpeg", "webp", "avif"])
        // The value holds the three thumbnails back to back, as the metadata lists them.
        let stored = try #require(metadata.thumbnails.first)
        #expect(stored.parts.map(\.bytes) == Self.formats.map { first[$0]!.count })
        try await harness.reopen()
        for format in Self.formats {
            let again = try await harness.pipeline.thumbnail(for: source, size: 128, format: format)
            #expect(again.servedFrom == .disk && !again.rendered, "\(format) from disk without a decode")
            #expect(again.format == format && again.data == first[format])
            #expect(again.width == 128)
        }
        // No format asked: the default (JPEG for this opaque source), the same stored bytes.
        let plain = try await harness.pipeline.thumbnail(for: source, size: 128)
        #expect(!plain.rendered && plain.format == .jpeg && plain.data == first[.jpeg])
        #expect(server.requestCount("/f.jpg") == 1)
        await harness.close()
        server.shutdown()
    }

    @Test func everyStoredFormatSurvivesA304() async throws {
        server.route("/r.jpg") { request in
            if request.headers["if-none-match"] == "\"r1\"" {
                return .respond(status: 304, headers: [("ETag", "\"r1\""), ("Cache-Control", "max-age=0")], body: Data())
            }
            return .respond(status: 200, headers: [("Cache-Control", "max-age=0"), ("ETag", "\"r1\"")], body: Fixtures.jpeg)
        }
        let harness = try PipelineHarness()
        let source = try ImageSource(server.url("/r.jpg"))
        let first = try await Self.renderEach(harness.pipeline, source)
        try await harness.reopen()
        for format in Self.formats {
            let again = try await harness.pipeline.thumbnail(for: source, size: 128, format: format)
            #expect(again.servedFrom == .revalidated && !again.rendered, "\(format) after a 304, no decode")
            #expect(again.data == first[format])
        }
        #expect(try harness.pipeline.info(for: source)?.metadata.formats(ofSize: 128) == ["jpeg", "webp", "avif"])
        await harness.close()
        server.shutdown()
    }

    @Test func aChangedOriginalDropsEveryFormat() async throws {
        let version = VersionBox()
        server.route("/c.jpg") { request in
            let current = version.value
            if request.headers["if-none-match"] == "\"c\(current)\"" { return .respond(status: 304, headers: [], body: Data()) }
            return .respond(status: 200, headers: [("Cache-Control", "no-cache"), ("ETag", "\"c\(current)\"")],
                            body: current == 1 ? Fixtures.jpeg : Fixtures.otherJpeg)
        }
        let harness = try PipelineHarness()
        let source = try ImageSource(server.url("/c.jpg"))
        _ = try await Self.renderEach(harness.pipeline, source)
        _ = try await harness.pipeline.thumbnail(for: source, size: 64, format: .webp)
        #expect(try harness.pipeline.info(for: source)?.metadata.thumbnailSizes == [64, 128])
        version.value = 2
        try await harness.reopen()
        let changed = try await harness.pipeline.thumbnail(for: source, size: 256, format: .avif)
        #expect(changed.servedFrom == .network && changed.rendered)
        let metadata = try #require(try harness.pipeline.info(for: source)).metadata
        #expect(metadata.thumbnails == [.init(size: 256, parts: [.init(format: "avif", bytes: changed.data.count)])])
        try await harness.reopen()
        let webp = try await harness.pipeline.thumbnail(for: source, size: 128, format: .webp)
        #expect(webp.rendered, "the old original's WebP is gone")
        await harness.close()
        server.shutdown()
    }

    /// A directory written by the previous layout: its entries are dropped at open (DiskLru wipes its own files
    /// when the journal's appVersion differs), never served; a file that is not DiskLru's stays.
    @Test func aCacheOfAppVersion2IsWipedAndForeignFilesStay() async throws {
        server.route("/old.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=3600")], body: Fixtures.jpeg) }
        let source = try ImageSource(server.url("/old.jpg"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-v2-\(UUID().uuidString)")
        let entries = directory.appendingPathComponent("entries")
        try FileManager.default.createDirectory(at: entries, withIntermediateDirectories: true)
        try Data(CacheDirectory.markerText.utf8).write(to: directory.appendingPathComponent(CacheDirectory.markerName))
        let foreign = entries.appendingPathComponent("notes.txt")
        try Data("not DiskLru's".utf8).write(to: foreign)
        // Version 2's layout: metadata version 1 with `variants`, one thumbnail per ladder size; a bogus thumbnail
        // so that serving it would show.
        let ladder = SizeLadder.standard
        let old = try DiskLruCache(directory: entries, appVersion: 2, valueCount: ladder.valueCount, maxSize: 1 << 30)
        let oldMetadata = """
            {"headers":{"cache-control":"max-age=3600"},"original":{"bytes":\(Fixtures.jpeg.count),"format":"jpeg","height":149,"width":227},\
            "requestTime":\(Date().timeIntervalSince1970),"responseTime":\(Date().timeIntervalSince1970),"url":"\(source.normalized)","variants":[64],"version":1}
            """
        for key in [source.cacheKey, "otherentry"] {
            var values = [Data](repeating: Data(), count: ladder.valueCount)
            values[0] = Data(oldMetadata.utf8)
            values[1] = Fixtures.jpeg
            values[ladder.valueIndex(of: 64)!] = Fixtures.otherJpeg
            try old.setData(values, forKey: key)
        }
        #expect(old.entryCount == 2)
        try old.close()
        #expect(FileManager.default.fileExists(atPath: entries.appendingPathComponent("otherentry.1").path))

        var configuration = PipelineConfiguration(cacheDirectory: directory)
        configuration.ladder = ladder
        let pipeline = try ThumbnailPipeline(configuration: configuration)
        #expect(try pipeline.info(for: source) == nil, "an entry of appVersion 2 is not served")
        #expect(pipeline.statistics().entries == 0)
        let result = try await pipeline.thumbnail(for: source, size: 64)
        #expect(result.servedFrom == .network && result.rendered && result.format == .jpeg)
        #expect(result.height == 42, "rendered from the original, not the old stored thumbnail")
        let webp = try await pipeline.thumbnail(for: source, size: 64, format: .webp)
        #expect(webp.rendered && webp.bytesStored > 0)
        await pipeline.close()
        let names = try FileManager.default.contentsOfDirectory(atPath: entries.path)
        #expect(!names.contains { $0.hasPrefix("otherentry") }, "\(names)")
        #expect(try Data(contentsOf: foreign) == Data("not DiskLru's".utf8), "a file that is not DiskLru's stays")
        let journal = try String(contentsOf: entries.appendingPathComponent(DiskLruCache.journalFileName), encoding: .utf8)
        #expect(journal.split(separator: "\n", omittingEmptySubsequences: false)[2] == "\(EntryStore.appVersion)")

        let reopened = try ThumbnailPipeline(configuration: configuration)
        let again = try await reopened.thumbnail(for: source, size: 64, format: .webp)
        #expect(again.servedFrom == .disk && !again.rendered && again.data == webp.data)
        await reopened.close()
        try? FileManager.default.removeItem(at: directory)
        server.shutdown()
    }
}
