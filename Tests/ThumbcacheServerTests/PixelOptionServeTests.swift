import Foundation
import ImageDecode
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// `flip`, `trim` and `watermark` on a real server from a real loopback origin: the pixels answered, one variant
/// per meaning, the 400s naming the option (nothing rendered), and the watermark loaded at start-up from a URL
/// through the fetch path and its source policy.
@Suite(.serialized) struct PixelOptionServeTests {
    static let signer = URLSigner(key: nil)

    static func path(_ options: String, _ source: String) -> String {
        ProcessingURLTests.path(options, source, signer: signer)
    }

    static func png(_ width: Int, _ height: Int, _ pixel: (Int, Int) -> [UInt8]) throws -> Data {
        var pixels: [UInt8] = []
        for y in 0..<height { for x in 0..<width { pixels += pixel(x, y) } }
        return try ImageEncoder.encode(PixelBuffer(width: width, height: height, channels: 3, pixels: pixels), as: .png)
    }

    static func decoded(_ answer: ServerHarness.Answer) throws -> PixelBuffer { try ImageDecoder.decode(answer.body) }

    @Test func flipMirrorsAndIsAVariantOfItsOwn() async throws {
        let origin = try await TestOrigin()
        let source = try Self.png(6, 2) { x, y in [UInt8(x * 40), UInt8(y * 100), 9] }
        origin.image("/s.png", source, type: "image/png")
        let server = try await ServerHarness()
        let url = origin.url("/s.png")
        let flipped = try await server.request(Self.path("fl:1:0/f:png", url))
        #expect(flipped.status == 200 && flipped.header("X-Thumbcache") == "network")
        let original = try ImageDecoder.decode(source), image = try Self.decoded(flipped)
        for y in 0..<2 { for x in 0..<6 { #expect(image[x, y] == original[5 - x, y]) } }
        // The long spelling is the same image: a memory hit. No flip is another image.
        let again = try await server.request(Self.path("flip:t:f/f:png", url))
        #expect(again.header("X-Thumbcache") == "memory" && again.body == flipped.body)
        let plain = try await server.request(Self.path("f:png", url))
        #expect(plain.status == 200 && plain.body != flipped.body)
        let refused = try await server.request(Self.path("fl:1:1:1", url))
        #expect(refused.status == 400 && refused.json["error"] == "bad_argument" && refused.json["message"]?.contains("fl") == true)
        await server.stop()
        await origin.stop()
    }

    @Test func trimCutsTheBorderBeforeTheResize() async throws {
        let origin = try await TestOrigin()
        // A 12 × 8 red block in a white 40 × 30 border.
        origin.image("/b.png", try Self.png(40, 30) { x, y in (10..<22).contains(x) && (5..<13).contains(y) ? [255, 0, 0] : [255, 255, 255] },
                     type: "image/png")
        let server = try await ServerHarness()
        let url = origin.url("/b.png")
        let trimmed = try await server.request(Self.path("t:10/f:png", url))
        #expect(trimmed.status == 200 && trimmed.imageSize! == (12, 8))
        #expect(try Self.decoded(trimmed).pixels == [UInt8](repeating: 0, count: 12 * 8).flatMap { _ in [255, 0, 0] as [UInt8] })
        // Resized after the trim: the block's aspect ratio.
        let resized = try await server.request(Self.path("t:10/rs:fit:6:6/f:png", url))
        #expect(resized.imageSize! == (6, 4))
        for bad in ["t:abc", "trim:10:notacolour"] {
            let refused = try await server.request(Self.path(bad, url))
            #expect(refused.status == 400 && refused.json["error"] == "bad_argument", "\(bad): \(refused.json)")
            #expect(refused.json["message"]?.contains(String(bad.prefix { $0 != ":" })) == true, "\(refused.json)")
        }
        #expect(server.metric("thumbcache_render_duration_seconds_count") == 2, "the refusals rendered nothing")
        await server.stop()
        await origin.stop()
    }

    @Test func theWatermarkIsFetchedOnceAtStartUpAndDrawnWhereAsked() async throws {
        let origin = try await TestOrigin()
        origin.image("/grey.png", try Self.png(50, 40) { _, _ in [128, 128, 128] }, type: "image/png")
        origin.image("/mark.png", try Self.png(10, 10) { _, _ in [255, 0, 0] }, type: "image/png")
        origin.image("/junk.png", Data("not an image".utf8), type: "image/png")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-wm-\(UUID().uuidString)")
        var configuration = ServeConfiguration()
        configuration.allowLoopbackSources = true
        configuration.watermark = .url(origin.url("/mark.png"))
        configuration.watermarkOpacity = 0.5
        let image = try #require(try await configuration.watermarkImage(pipeline: PipelineConfiguration(cacheDirectory: directory)))
        #expect(image.pixels.width == 10 && image.opacity == 0.5 && origin.count("/mark.png") == 1)

        // The source policy applies: a loopback watermark without --allow-loopback-sources is refused, as a source is.
        var strict = configuration
        strict.allowLoopbackSources = false
        await #expect(throws: WatermarkError.self) { try await strict.watermarkImage(pipeline: PipelineConfiguration(cacheDirectory: directory)) }
        var junk = configuration
        junk.watermark = .url(origin.url("/junk.png"))
        do {
            _ = try await junk.watermarkImage(pipeline: PipelineConfiguration(cacheDirectory: directory))
            Issue.record("an unreadable watermark was accepted")
        } catch {
            #expect(error.description.contains("--watermark-url") && error.description.contains("cannot be used"))
        }

        let server = try await ServerHarness(pipeline: { $0.watermark = image })
        let url = origin.url("/grey.png")
        let marked = try await server.request(Self.path("wm:1:nowe:5:5/f:png", url))
        #expect(marked.status == 200)
        let pixels = try Self.decoded(marked)
        // Opacity 1 × the server's 0.5: 255 × 0.5 + 128 × 0.5 = 191.5, and 128 × 0.5 = 64.
        #expect(pixels[5, 5] == [192, 64, 64] && pixels[14, 14] == [192, 64, 64] && pixels[4, 5] == [128, 128, 128])
        let unmarked = try Self.decoded(try await server.request(Self.path("f:png", url)))
        #expect(unmarked[5, 5] == [128, 128, 128])
        let refused = try await server.request(Self.path("wm:2", url))
        #expect(refused.status == 400 && refused.json["message"]?.contains("wm") == true, "\(refused.json)")
        #expect(origin.count("/mark.png") == 1, "fetched once, at start-up")
        await server.stop()
        await origin.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    @Test func anotherWatermarkAfterARestartRendersAgain() async throws {
        let origin = try await TestOrigin()
        origin.image("/grey.png", try Self.png(30, 20) { _, _ in [128, 128, 128] }, type: "image/png")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-wm-\(UUID().uuidString)")
        let url = origin.url("/grey.png")
        /// The centre pixel, and how many renders the server made (0: the stored variant answered).
        func centre(_ colour: [UInt8], opacity: Double = 1) async throws -> (pixel: [UInt8], renders: Int) {
            let mark = WatermarkImage(pixels: PixelBuffer(width: 4, height: 4, channels: 3,
                                                          pixels: Array(repeatElement(colour, count: 16).joined())), opacity: opacity)
            let server = try await ServerHarness(directory: directory, pipeline: { $0.watermark = mark })
            let answer = try await server.request(Self.path("wm:1:ce/f:png", url))
            let renders = server.metric("thumbcache_render_duration_seconds_count")
            await server.stop(removingDirectory: false)
            return (try Self.decoded(answer)[15, 10], renders)
        }
        #expect(try await centre([0, 0, 255]).pixel == [0, 0, 255])
        // The control: the same watermark after a restart is the stored variant.
        let same = try await centre([0, 0, 255])
        #expect(same.pixel == [0, 0, 255] && same.renders == 0, "\(same)")
        // Same URL, same cache directory, another image: drawn again, not the stored blue one.
        let green = try await centre([0, 255, 0])
        #expect(green.pixel == [0, 255, 0] && green.renders == 1, "\(green)")
        // Another opacity of the same image too.
        #expect(try await centre([0, 255, 0], opacity: 0.5).pixel == [64, 192, 64])
        await origin.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    @Test func watermarkDataAndPathAreReadTooAndDataWins() async throws {
        let mark = try Self.png(3, 2) { _, _ in [0, 0, 255] }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-wm-\(UUID().uuidString).png")
        try mark.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let pipeline = PipelineConfiguration(cacheDirectory: FileManager.default.temporaryDirectory)
        #expect(WatermarkSource.first(data: mark.base64EncodedString(), path: file.path, url: "http://x") == .data(mark.base64EncodedString()))
        #expect(WatermarkSource.first(data: "", path: file.path, url: "http://x") == .path(file.path))
        for source in [WatermarkSource.data(mark.base64EncodedString()), .path(file.path)] {
            let image = try await source.load(opacity: 1, configuration: pipeline)
            #expect(image.pixels.width == 3 && image.pixels[0, 0] == [0, 0, 255, 255])
        }
        await #expect(throws: WatermarkError.self) { try await WatermarkSource.path("/nonexistent/wm.png").load(opacity: 1, configuration: pipeline) }
        await #expect(throws: WatermarkError.self) { try await WatermarkSource.data("%%%").load(opacity: 1, configuration: pipeline) }
    }
}
