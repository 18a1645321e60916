import Foundation
import ImageDecode
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// TIFF, BMP and ICO through serve's processing URL from a real loopback origin: each read, each written (by `f:` and
/// by the path's extension), a preferred format (JPEG, PNG for alpha) when none is asked, and a hostile BMP refused as 422.
@Suite(.serialized) struct TIFFBMPICOServeTests {
    static func path(_ options: String, _ source: String, ext: String? = nil) -> String {
        ProcessingURLTests.path(options, source, ext: ext, signer: URLSigner(key: nil))
    }

    @Test func readsAndWritesTIFFBMPAndICO() async throws {
        let origin = try await TestOrigin()
        for (name, type) in [("tiff/pyramid.tiff", "image/tiff"), ("bmp/8-bpp-rle-small.bmp", "image/bmp"),
                             ("ico/multi-png.ico", "image/x-icon")] {
            origin.image("/" + name, try Data(contentsOf: Fixtures.directory.appendingPathComponent(name)), type: type)
        }
        let server = try await ServerHarness()
        for name in ["tiff/pyramid.tiff", "bmp/8-bpp-rle-small.bmp", "ico/multi-png.ico"] {
            let source = origin.url("/" + name)
            for format in [ImageFormat.tiff, .bmp, .ico, .png] {
                let answer = try await server.request(Self.path("rs:fit:24:24/f:\(format.rawValue)", source))
                #expect(answer.status == 200, "\(name) → \(format)")
                #expect(answer.header("Content-Type") == format.mimeType)
                #expect(ImageFormat.sniff(answer.body) == format && answer.imageSize.map { max($0.width, $0.height) } == 24,
                        "\(name) → \(format)")
            }
            // No format asked: none is a preferred format (imgproxy's default jpeg,png,gif), so JPEG, or PNG to keep
            // alpha.
            let own = try await server.request(Self.path("rs:fit:20:20", source))
            let alpha = try ImageDecoder.probe(Data(contentsOf: Fixtures.directory.appendingPathComponent(name))).hasAlpha
            #expect(own.status == 200 && ImageFormat.sniff(own.body) == (alpha ? .png : .jpeg), "\(name)")
        }
        // The extension spelling, `.tif`.
        let byExtension = try await server.request(Self.path("rs:fit:16:16", origin.url("/bmp/8-bpp-rle-small.bmp"), ext: "tif"))
        #expect(byExtension.status == 200 && ImageFormat.sniff(byExtension.body) == .tiff)
        await server.stop()
        await origin.stop()
    }

    @Test func aHostileBMPIsRefused() async throws {
        let origin = try await TestOrigin()
        // 40 bits a pixel, as imgproxy's bmp-invalid-bpp.bmp.
        var bytes = Array("BM".utf8) + [UInt8](repeating: 0, count: 8) + [54, 0, 0, 0, 40, 0, 0, 0]
        bytes += [4, 0, 0, 0, 4, 0, 0, 0, 1, 0, 40, 0] + [UInt8](repeating: 0, count: 24) + [UInt8](repeating: 7, count: 80)
        origin.image("/bad.bmp", Data(bytes), type: "image/bmp")
        let server = try await ServerHarness()
        let answer = try await server.request(Self.path("rs:fit:4:4", origin.url("/bad.bmp")))
        #expect(answer.status == 422 && answer.json["error"] == "bad_image" && answer.json["message"]?.contains("40 bits") == true,
                "\(answer.status) \(answer.json)")
        await server.stop()
        await origin.stop()
    }
}
