import Foundation
import ImageDecode
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// HEIC answers (issue 32, "out where imgproxy writes them") through real HTTP from a loopback origin: `f:heic`, the
/// `.heic` extension and `@heic` on the processing URL, the short grammar's extension, alpha kept, `fq:heic`, and a
/// bad quality refused with nothing rendered or stored. `Accept` never picks HEIC (imgproxy negotiates WebP, AVIF
/// and JPEG XL only).
@Suite(.serialized) struct HEICOutServeTests {
    static let alpha = try! Data(contentsOf: Fixtures.directory.appendingPathComponent("rocket-adobergb-alpha.png"))

    static func path(_ options: String, _ source: String, ext: String? = nil) -> String {
        ProcessingURLTests.path(options, source, ext: ext, signer: URLSigner(key: nil))
    }

    @Test func heicIsAnsweredByEveryWayOfAskingForIt() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)  // 227×149
        origin.image("/alpha.png", Self.alpha, type: "image/png")  // 96×64
        let server = try await ServerHarness()
        let jpeg = origin.url("/a.jpg")
        let named = try await server.request(Self.path("rs:fit:100:100/f:heic", jpeg))
        #expect(named.status == 200 && named.header("Content-Type") == "image/heif", "\(named.status)")
        #expect(ImageFormat.sniff(named.body) == .heic && named.imageSize?.width == 100 && named.imageSize?.height == 66)
        let decoded = try ImageDecoder.decode(named.body)
        #expect(decoded.width == 100 && decoded.channels == 3)
        let byExtension = try await server.request(Self.path("rs:fit:100:100", jpeg, ext: "heic"))
        #expect(byExtension.status == 200 && byExtension.body == named.body, "the same meaning, the same answer")
        let plain = try await server.request("/unsafe/rs:fit:100:100/plain/" + jpeg + "@heif")
        #expect(plain.status == 200 && ImageFormat.sniff(plain.body) == .heic)
        let short = try await server.request(server.path(jpeg, size: 64, format: .heic))
        #expect(short.status == 200 && ImageFormat.sniff(short.body) == .heic && short.imageSize?.width == 64)

        let alpha = try await server.request(Self.path("w:48/f:heic", origin.url("/alpha.png")))
        let withAlpha = try ImageDecoder.decode(alpha.body)
        #expect(alpha.status == 200 && withAlpha.width == 48 && withAlpha.channels == 4)

        // fq:heic sets HEIC's quality; the answer at a lower quality is smaller.
        let low = try await server.request(Self.path("rs:fit:100:100/f:heic/fq:heic:30", jpeg))
        #expect(low.status == 200 && ImageFormat.sniff(low.body) == .heic && low.body.count < named.body.count)

        // Accept naming HEIC picks nothing: the default format, as imgproxy answers.
        let accepted = try await server.request(Self.path("rs:fit:100:100", jpeg), headers: [("Accept", "image/heif,image/heic")])
        #expect(accepted.status == 200 && ImageFormat.sniff(accepted.body) == .jpeg)
        #expect(origin.count("/a.jpg") == 1)
        await server.stop()
        await origin.stop()
    }

    @Test func aBadQualityIsRefusedByNameAndNothingIsRendered() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness()
        let jpeg = origin.url("/a.jpg")
        for options in ["f:heic/q:101", "f:heic/q:-1", "f:heic/fq:heic:101", "f:heic/fq:heic:x"] {
            for _ in 0..<2 {
                let answer = try await server.request(Self.path(options, jpeg))
                #expect(answer.status == 400 && answer.json["error"] == "bad_argument", "\(options): \(answer.json)")
                #expect(answer.header("X-Thumbcache") != "memory", "\(options)")
            }
        }
        #expect(server.metric("thumbcache_render_duration_seconds_count") == 0)
        await server.stop()
        await origin.stop()
    }
}
