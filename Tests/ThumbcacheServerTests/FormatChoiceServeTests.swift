import Foundation
import ImageDecode
import Processing
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// The answer's format through `serve` from a real loopback origin, as imgproxy's `determineOutputFormat` decides
/// it: formats from `Accept` (preferred, `--auto-jxl`; enforced) passed over for an animation when they save none,
/// the preferred formats (`--preferred-formats`) for a URL naming none, and the memory keys, stored variants and
/// `Vary` of each outcome.
@Suite(.serialized) struct FormatChoiceServeTests {
    static func path(_ options: String, _ source: String) -> String {
        ProcessingURLTests.path(options, source, ext: nil, signer: URLSigner(key: nil))
    }

    static let browser = [("Accept", "image/avif,image/webp,image/apng,image/*,*/*;q=0.8")]

    static func frames(_ data: Data) throws -> Int { try ImageDecoder.probe(data).frameCount ?? 1 }

    /// A still 12x8 in `format`, with alpha (half transparent) or opaque.
    static func still(_ format: ImageFormat, alpha: Bool = false) throws -> Data {
        let channels = alpha ? 4 : 3
        let pixel: [UInt8] = alpha ? [200, 40, 40, 128] : [200, 40, 40]
        return try ImageEncoder.encode(PixelBuffer(width: 12, height: 8, channels: channels,
                                                   pixels: Array(repeating: pixel, count: 96).flatMap { $0 }), as: format)
    }

    /// Three frames of 64x48 in `format` (GIF or WebP): smooth gradients, which a dithered GIF writes in more bytes
    /// than a WebP, so a negotiated WebP is never answered as its smaller fallback here (`FormatFallback`).
    static func animation(_ format: ImageFormat) throws -> Data {
        let frames = (0..<3).map { frame in
            PixelBuffer(width: 64, height: 48, channels: 3, pixels: (0..<(64 * 48)).flatMap { (i: Int) -> [UInt8] in
                let (x, y) = (i % 64, i / 64)
                return [UInt8(x * 4), UInt8(y * 5), UInt8(frame * 100)]
            })
        }
        return try EncodeSettings(format: format).encode(frames: frames, delays: [50, 70, 100], loopCount: 0).data
    }

    @Test func anAnimatedGIFAskedWithAVIFAndWebPIsAnAnimatedWebP() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.gif", try Self.animation(.gif), type: "image/gif")
        let server = try await ServerHarness { $0.autoJXL = true }
        let url = origin.url("/a.gif")
        let webp = try await server.request(Self.path("rs:fit:32:32", url), headers: Self.browser)
        #expect(webp.status == 200 && webp.header("Content-Type") == "image/webp" && webp.header("Vary") == "Accept")
        #expect(try Self.frames(webp.body) == 3, "animated, not AVIF's first frame")
        let withJXL = try await server.request(Self.path("rs:fit:32:32", url), headers: [("Accept", "image/jxl,image/avif,image/webp")])
        #expect(try withJXL.header("Content-Type") == "image/webp" && Self.frames(withJXL.body) == 3)
        // Neither WebP nor anything else it keeps animated: the source's own format, preferred (GIF).
        let avifOnly = try await server.request(Self.path("rs:fit:32:32", url), headers: [("Accept", "image/avif,image/jxl")])
        #expect(try avifOnly.header("Content-Type") == "image/gif" && Self.frames(avifOnly.body) == 3)
        #expect(avifOnly.header("Vary") == "Accept")
        // Kept as a still (da), it is no animation: AVIF again.
        let still = try await server.request(Self.path("rs:fit:32:32/da:1", url), headers: Self.browser)
        #expect(still.header("Content-Type") == "image/avif" || still.header("Content-Type") == "image/gif", "AVIF, or the smaller fallback")
        #expect(try Self.frames(still.body) == 1)
        // The short grammar too.
        let short = try await server.request(server.path(url, size: 4), headers: Self.browser)
        #expect(try short.header("Content-Type") == "image/webp" && Self.frames(short.body) == 3)
        // Each class of Accept is its own memory key: asked again, each answers what it answered.
        let again = try await server.request(Self.path("rs:fit:32:32", url), headers: Self.browser)
        #expect(again.header("X-Thumbcache") == "memory" && again.body == webp.body)
        let gifAgain = try await server.request(Self.path("rs:fit:32:32", url), headers: [("Accept", "image/avif,image/jxl")])
        #expect(gifAgain.header("X-Thumbcache") == "memory" && gifAgain.body == avifOnly.body)
        await server.stop()
        await origin.stop()
    }

    /// The negotiated animation is stored where its description says (a ladder size of the short grammar in the
    /// source's entry, a processing URL as a variant) and read back from disk after a restart, not rendered again.
    @Test func aNegotiatedAnimationIsStoredAndReadBackFromDisk() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.gif", try Self.animation(.gif), type: "image/gif")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-negotiated-\(UUID().uuidString)")
        let url = origin.url("/a.gif")
        var short = ThumbnailPath(signature: "", size: 256, fit: .contain, source: url, format: nil)
        short.signature = URLSigner(key: nil).signature(for: short.signedPart)
        let paths = [short.path, Self.path("rs:fit:32:32", url)]
        func answers() async throws -> (bodies: [Data], types: [String?], served: [String?], renders: Int) {
            let server = try await ServerHarness(directory: directory)
            var answers: [ServerHarness.Answer] = []
            for path in paths { answers.append(try await server.request(path, headers: Self.browser)) }
            let renders = server.metric("thumbcache_render_duration_seconds_count")
            await server.stop(removingDirectory: false)
            return (answers.map(\.body), answers.map { $0.header("Content-Type") }, answers.map { $0.header("X-Thumbcache") }, renders)
        }
        let first = try await answers()
        #expect(first.types == ["image/webp", "image/webp"] && first.renders == 2)
        #expect(try first.bodies.allSatisfy { try Self.frames($0) == 3 })
        let again = try await answers()
        #expect(again.served == ["disk", "disk"] && again.renders == 0 && again.bodies == first.bodies, "\(again.served)")
        await origin.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    @Test func enforcedAVIFAndJXLPassOverAnAnimationEnforcedWebPDoesNot() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.gif", try Self.animation(.gif), type: "image/gif")
        origin.image("/a.jpg", Fixtures.jpeg)
        let url = origin.url("/a.gif")
        let strict = try await ServerHarness { $0.enforceAVIF = true; $0.enforceJXL = true }
        let kept = try await strict.request(Self.path("rs:fit:32:32/f:gif", url), headers: [("Accept", "image/avif,image/jxl")])
        #expect(try kept.header("Content-Type") == "image/gif" && Self.frames(kept.body) == 3)
        #expect(kept.header("Vary") == "Accept")
        // A still is enforced as before: JPEG XL first.
        let photo = try await strict.request(Self.path("rs:fit:50:50/f:png", origin.url("/a.jpg")), headers: [("Accept", "image/avif,image/jxl")])
        #expect(photo.header("Content-Type") == "image/jxl")
        // Enforcing JPEG XL prefers it too, for a URL naming no format (imgproxy's detector).
        let preferred = try await strict.request(Self.path("rs:fit:50:50", origin.url("/a.jpg")), headers: [("Accept", "image/jxl")])
        #expect(preferred.header("Content-Type") == "image/jxl" || preferred.header("Content-Type") == "image/jpeg")
        await strict.stop()
        let all = try await ServerHarness { $0.enforceAVIF = true; $0.enforceWebP = true }
        let webp = try await all.request(Self.path("rs:fit:32:32/f:gif", url), headers: Self.browser)
        #expect(try webp.header("Content-Type") == "image/webp" && Self.frames(webp.body) == 3)
        // SVG is never replaced (imgproxy refuses it first): a raster source asked as SVG is 422 whatever Accept says.
        let svg = try await all.request(Self.path("rs:fit:32:32/f:svg", origin.url("/a.jpg")), headers: Self.browser)
        #expect(svg.status == 422 && svg.json["error"] == "bad_image", "\(svg.status) \(svg.json)")
        await all.stop()
        await origin.stop()
    }

    @Test func autoJXLPrefersJPEGXLWhenAcceptNamesIt() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let source = origin.url("/a.jpg")
        // A low JPEG XL quality makes it the smaller file, so the fallback rule keeps it.
        let auto = try await ServerHarness(configure: { $0.autoJXL = true }, pipeline: { $0.formatQuality.set(20, for: .jxl) })
        let jxl = try await auto.request(Self.path("rs:fit:60:60", source), headers: [("Accept", "image/jxl,image/avif,image/webp")])
        #expect(jxl.header("Content-Type") == "image/jxl" && jxl.header("Vary") == "Accept")
        let avif = try await auto.request(Self.path("rs:fit:60:60", source), headers: [("Accept", "image/avif,image/webp")])
        #expect(avif.header("Content-Type") != "image/jxl")
        await auto.stop()
        let off = try await ServerHarness(pipeline: { $0.formatQuality.set(20, for: .jxl) })
        let plain = try await off.request(Self.path("rs:fit:60:60", source), headers: [("Accept", "image/jxl")])
        #expect(plain.header("Content-Type") == "image/jpeg" && plain.header("Vary") == "Accept", "without --auto-jxl")
        await off.stop()
        await origin.stop()
    }

    @Test func noFormatNamedAnswersAPreferredFormat() async throws {
        let origin = try await TestOrigin()
        let sources: [(String, Data, String)] = [
            ("/photo.heic", try Data(contentsOf: Fixtures.directory.appendingPathComponent("heic/heif.heif")), "image/jpeg"),
            ("/photo.bmp", try Data(contentsOf: Fixtures.directory.appendingPathComponent("bmp/8-bpp-rle-small.bmp")), "image/jpeg"),
            ("/photo.tiff", try Data(contentsOf: Fixtures.directory.appendingPathComponent("tiff/pyramid.tiff")), "image/jpeg"),
            ("/still.webp", try Self.still(.webp), "image/jpeg"),
            ("/alpha.webp", try Self.still(.webp, alpha: true), "image/png"),
            ("/alpha.png", try Self.still(.png, alpha: true), "image/png"),
            ("/opaque.png", try Self.still(.png), "image/png"),
            ("/photo.jpg", Fixtures.jpeg, "image/jpeg"),
            ("/moving.webp", try Self.animation(.webp), "image/gif"),
        ]
        for (path, data, _) in sources { origin.image(path, data) }
        let server = try await ServerHarness()
        for (path, _, expected) in sources {
            let answer = try await server.request(Self.path("rs:fit:10:10", origin.url(path)))
            #expect(answer.status == 200 && answer.header("Content-Type") == expected, "\(path): \(answer.header("Content-Type") ?? "")")
            #expect(answer.header("Content-Type").flatMap { type in ImageFormat.sniff(answer.body).map { $0.mimeType == type } } == true)
        }
        let moving = try await server.request(Self.path("rs:fit:10:10", origin.url("/moving.webp")))
        #expect(try Self.frames(moving.body) == 3, "an animated WebP is an animated GIF")
        // Padding expects transparency: a BMP padded is PNG; a background flattens it to JPEG again.
        let padded = try await server.request(Self.path("rs:fit:10:10/pd:2", origin.url("/photo.bmp")))
        #expect(padded.header("Content-Type") == "image/png")
        let flattened = try await server.request(Self.path("rs:fit:10:10/pd:2/bg:ffffff", origin.url("/photo.bmp")))
        #expect(flattened.header("Content-Type") == "image/jpeg")
        await server.stop()
        await origin.stop()
    }

    @Test func thePreferredFormatsAreTheServersAndNameTheStoredVariant() async throws {
        let origin = try await TestOrigin()
        origin.image("/photo.jpg", Fixtures.jpeg)
        origin.image("/photo.heic", try Data(contentsOf: Fixtures.directory.appendingPathComponent("heic/heif.heif")))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-preferred-\(UUID().uuidString)")
        func answer(_ list: String, _ source: String) async throws -> (type: String?, renders: Int) {
            let formats = try PreferredFormats(parsing: list)
            let server = try await ServerHarness(directory: directory, pipeline: { $0.preferredFormats = formats })
            let answer = try await server.request(Self.path("rs:fit:30:30", origin.url(source)))
            let renders = server.metric("thumbcache_render_duration_seconds_count")
            await server.stop(removingDirectory: false)
            return (answer.header("Content-Type"), renders)
        }
        #expect(try await answer("jpeg,png,gif", "/photo.heic") == ("image/jpeg", 1))
        #expect(try await answer("jpeg,png,gif", "/photo.heic") == ("image/jpeg", 0), "the stored variant")
        #expect(try await answer("webp,png", "/photo.heic") == ("image/webp", 1), "another list, another image")
        #expect(try await answer("webp,png", "/photo.jpg") == ("image/webp", 1), "JPEG is not listed")
        #expect(try await answer("png,jpeg", "/photo.jpg") == ("image/jpeg", 1))
        await origin.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    @Test func aURLNamingTheDecidedFormatSharesTheStoredVariant() async throws {
        let origin = try await TestOrigin()
        origin.image("/photo.heic", try Data(contentsOf: Fixtures.directory.appendingPathComponent("heic/heif.heif")))
        let server = try await ServerHarness()
        let source = origin.url("/photo.heic")
        let auto = try await server.request(Self.path("rs:fit:30:30", source))
        #expect(auto.header("Content-Type") == "image/jpeg")
        let named = try await server.request(Self.path("rs:fit:30:30/f:jpg", source))
        #expect(named.body == auto.body && named.header("X-Thumbcache") == "disk", "one image, one variant")
        #expect(server.metric("thumbcache_render_duration_seconds_count") == 1)
        await server.stop()
        await origin.stop()
    }
}
