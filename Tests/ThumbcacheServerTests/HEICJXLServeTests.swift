import Foundation
import ImageDecode
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// Issue 32 through real HTTP: HEIC and JPEG XL originals from a loopback origin, JPEG XL answers, `--enforce-jxl`.
@Suite(.serialized) struct HEICJXLServeTests {
    static let heic = try! Data(contentsOf: Fixtures.directory.appendingPathComponent("heic/heif.heif"))
    static let jxl = try! Data(contentsOf: Fixtures.directory.appendingPathComponent("jxl/8-bpp.jxl"))

    static func path(_ options: String, _ source: String) -> String {
        ProcessingURLTests.path(options, source, ext: nil, signer: URLSigner(key: nil))
    }

    @Test func heicAndJXLOriginsAreProcessedAndJXLIsAnswered() async throws {
        let origin = try await TestOrigin()
        origin.image("/photo.heic", Self.heic)
        origin.image("/photo.jxl", Self.jxl)
        let server = try await ServerHarness()
        let heic = origin.url("/photo.heic"), jxl = origin.url("/photo.jxl")
        let jpeg = try await server.request(Self.path("rs:fit:100:100/f:jpg", heic))
        #expect(jpeg.status == 200 && ImageFormat.sniff(jpeg.body) == .jpeg && jpeg.imageSize?.width == 100)
        #expect(jpeg.imageSize?.height == 67)
        let fromJXL = try await server.request(Self.path("rs:fill:80:80/f:jxl", jxl))
        #expect(fromJXL.status == 200 && fromJXL.header("Content-Type") == "image/jxl")
        #expect(ImageFormat.sniff(fromJXL.body) == .jxl && fromJXL.imageSize?.width == 80 && fromJXL.imageSize?.height == 80)
        // The short grammar's default is JPEG (PNG with alpha) whatever the original; imgproxy's is the first
        // preferred format (JPEG XL is not one by default: JPEG).
        let short = try await server.request(server.path(jxl, size: 64))
        #expect(short.status == 200 && ImageFormat.sniff(short.body) == .jpeg && short.imageSize?.width == 64)
        let processed = try await server.request(Self.path("w:64", jxl))
        #expect(processed.status == 200 && ImageFormat.sniff(processed.body) == .jpeg)
        let named = try await server.request(server.path(heic, size: 64, format: .jxl))
        #expect(named.status == 200 && ImageFormat.sniff(named.body) == .jxl)
        await server.stop()
        await origin.stop()
    }

    @Test func enforcedJXLReplacesANamedFormatWhenAcceptNamesIt() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness {
            $0.enforceJXL = true
            $0.enforceAVIF = true
        }
        let source = origin.url("/a.jpg")
        let enforced = try await server.request(Self.path("rs:fit:50:50/f:png", source),
                                                headers: [("Accept", "image/avif,image/jxl")])
        #expect(ImageFormat.sniff(enforced.body) == .jxl && enforced.header("Vary") == "Accept")
        let avif = try await server.request(Self.path("rs:fit:50:50/f:png", source), headers: [("Accept", "image/avif")])
        #expect(ImageFormat.sniff(avif.body) == .avif)
        // Not named by Accept (a wildcard does not count): the URL's format.
        let kept = try await server.request(Self.path("rs:fit:50:50/f:png", source), headers: [("Accept", "image/*")])
        #expect(ImageFormat.sniff(kept.body) == .png)
        await server.stop()
        await origin.stop()
    }

    @Test func hostileHEICAndJXLOriginsAreRefusedAndNothingIsCached() async throws {
        let origin = try await TestOrigin()
        origin.image("/cut.heic", Self.heic.prefix(Self.heic.count / 2))
        origin.image("/cut.jxl", Self.jxl.prefix(Self.jxl.count / 2))
        let server = try await ServerHarness()
        for name in ["/cut.heic", "/cut.jxl"] {
            let path = Self.path("rs:fit:50:50/f:jpg", origin.url(name))
            let first = try await server.request(path)
            #expect((400..<600).contains(first.status), "\(name): \(first.status)")
            let again = try await server.request(path)
            #expect(again.status == first.status && again.header("X-Thumbcache") != "memory")
        }
        await server.stop()
        await origin.stop()
    }
}
