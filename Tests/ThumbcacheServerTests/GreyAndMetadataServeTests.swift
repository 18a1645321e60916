import Foundation
import ImageDecode
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// Issue 31 through real HTTP: a grey source answers grey (both grammars, and from a stored WebP thumbnail that cannot
/// be grey itself), and `sm`/`kcr`/`scp` and the server's defaults decide the metadata an answer carries.
@Suite(.serialized) struct GreyAndMetadataServeTests {
    static func path(_ options: String, _ source: String) -> String {
        ProcessingURLTests.path(options, source, ext: nil, signer: URLSigner(key: nil))
    }

    /// A 600×400 grey PNG (a neutral gradient written grey).
    static let greyPNG: Data = {
        var pixels = [UInt8](repeating: 0, count: 600 * 400 * 3)
        for index in 0..<(600 * 400) {
            let value = UInt8((index % 600 + index / 600) % 256)
            (pixels[index * 3], pixels[index * 3 + 1], pixels[index * 3 + 2]) = (value, value, value)
        }
        return try! ImageEncoder.encode(PixelBuffer(width: 600, height: 400, channels: 3, pixels: pixels), as: .png, grey: true)
    }()

    @Test func aGreySourceAnswersGreyInBothGrammarsAndFromAStoredWebP() async throws {
        let origin = try await TestOrigin()
        origin.image("/grey.png", Self.greyPNG)
        let server = try await ServerHarness()
        let source = origin.url("/grey.png")
        let processed = try await server.request(Self.path("rs:fit:100:100", source))
        #expect(processed.status == 200 && processed.header("Content-Type") == "image/png")
        #expect(processed.body[25] == 0, "PNG colour type 0: grey")
        let thumbnail = try await server.request(server.path(source, size: 64, format: .jpeg))
        #expect(thumbnail.status == 200 && (try? ImageDecoder.probe(thumbnail.body).isGrey) == true)
        // A WebP rung (RGB: WebP has no grey, and lossy 4:2:0 leaves it not quite neutral) that covers the render does
        // not stand in for a grey original: the JPEG is made from the original, grey.
        let webp = try await server.request(server.path(source, size: 256, format: .webp))
        #expect(webp.status == 200 && (try? ImageDecoder.probe(webp.body).isGrey) == false)
        let fromRung = try await server.request(Self.path("w:100/f:jpg", source))
        #expect(fromRung.status == 200 && (try? ImageDecoder.probe(fromRung.body).isGrey) == true, "\(fromRung.status) \(String(describing: try? ImageDecoder.probe(fromRung.body))) \(fromRung.json)")
        await server.stop()
        await origin.stop()
    }

    @Test func metadataOptionsAndTheServerDefaultsDecideWhatAnAnswerCarries() async throws {
        let origin = try await TestOrigin()
        let pixels = [UInt8](repeating: 120, count: 80 * 60 * 3).enumerated().map { UInt8(truncatingIfNeeded: $0.offset % 7 * 30 + Int($0.element)) }
        let tagged = try ImageEncoder.encode(PixelBuffer(width: 80, height: 60, channels: 3, pixels: pixels), as: .jpeg,
                                             metadata: ImageMetadata(artist: "Ann Artist", copyright: "(c) 2026 Test"))
        origin.image("/tagged.jpg", tagged)
        origin.image("/adobe.png", try Data(contentsOf: Fixtures.directory.appendingPathComponent("rocket-adobergb.png")))
        let server = try await ServerHarness()
        let source = origin.url("/tagged.jpg")
        func metadata(_ options: String, _ source: String, on server: ServerHarness) async throws -> ImageMetadata? {
            let answer = try await server.request(Self.path(options, source))
            #expect(answer.status == 200, "\(options): \(answer.json)")
            return try? ImageDecoder.probe(answer.body).metadata
        }
        #expect(try await metadata("w:40", source, on: server)?.copyright == "(c) 2026 Test", "kept by default")
        #expect(try await metadata("w:40/kcr:0", source, on: server)?.exif == nil)
        #expect(try await metadata("w:40/f:webp", source, on: server)?.artist == "Ann Artist")
        let adobe = origin.url("/adobe.png")
        #expect(try await metadata("w:40/scp:0", adobe, on: server)?.iccProfile != nil)
        #expect(try await metadata("w:40", adobe, on: server)?.iccProfile == nil)
        await server.stop()
        // The server's defaults (--keep-copyright false), overridden per URL.
        let stripping = try await ServerHarness(pipeline: { $0.metadata = MetadataPolicy(keepCopyright: false) })
        #expect(try await metadata("w:40", source, on: stripping)?.exif == nil)
        #expect(try await metadata("w:40/kcr:1", source, on: stripping)?.copyright == "(c) 2026 Test")
        await stripping.stop()
        await origin.stop()
    }
}
