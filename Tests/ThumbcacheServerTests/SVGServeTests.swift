import Foundation
import ImageDecode
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// SVG through serve's processing URLs, as imgproxy answers them: passed through sanitised when asked as SVG or with
/// no format, drawn when another format is named (or with `--always-rasterize-svg`), refused as SVG from a raster.
@Suite(.serialized) struct SVGServeTests {
    static func path(_ options: String, _ source: String, ext: String? = nil) -> String {
        ProcessingURLTests.path(options, source, ext: ext, signer: URLSigner(key: nil))
    }

    static let test1 = try! Data(contentsOf: Fixtures.directory.appendingPathComponent("svg/test1.svg"))
    static let sanitized = try! Data(contentsOf: Fixtures.directory.appendingPathComponent("svg/test1.sanitized.svg"))

    @Test func anSVGIsPassedThroughSanitisedOrDrawnAsAsked() async throws {
        let origin = try await TestOrigin()
        origin.image("/test1.svg", Self.test1, type: "image/svg+xml")
        let server = try await ServerHarness()
        let source = origin.url("/test1.svg")
        // imgproxy's TestSkipProcessingSVG: no format named, so the source itself, sanitised, whatever the options.
        let passed = try await server.request(Self.path("rs:fill:4:4", source))
        #expect(passed.status == 200 && passed.header("Content-Type") == "image/svg+xml", "\(passed.json)")
        #expect(passed.body == Self.sanitized)
        // Asked as SVG (f:svg, .svg) too; an Accept naming WebP does not make it drawn (no format is named).
        let named = try await server.request(Self.path("rs:fill:4:4", source, ext: "svg"), headers: [("Accept", "image/webp,*/*")])
        #expect(named.status == 200 && named.body == Self.sanitized)
        let negotiated = try await server.request(Self.path("w:50", source), headers: [("Accept", "image/webp,*/*")])
        #expect(negotiated.status == 200 && negotiated.header("Content-Type") == "image/svg+xml")
        // Another format named: drawn at the plan's size.
        let drawn = try await server.request(Self.path("rs:fill:40:40", source, ext: "png"))
        #expect(drawn.status == 200 && drawn.header("Content-Type") == "image/png")
        let info = try ImageDecoder.probe(drawn.body)
        #expect((info.width, info.height) == (40, 40))
        let jpeg = try await server.request(Self.path("w:100/f:jpg", source))
        let jpegWidth = try? ImageDecoder.probe(jpeg.body).width
        #expect(jpeg.status == 200 && jpegWidth == 100)
        // `raw` answers the source as it is (imgproxy does not sanitise raw either).
        let raw = try await server.request(Self.path("raw:1", source))
        #expect(raw.status == 200 && raw.body == Self.test1)
        // A raster asked as SVG: imgproxy's 422 (TestErrorSavingToSVG), nothing drawn.
        origin.image("/a.png", Fixtures.png, type: "image/png")
        let refused = try await server.request(Self.path("rs:fill:4:4", origin.url("/a.png"), ext: "svg"))
        #expect(refused.status == 422, "\(refused.json)")
        #expect(refused.json["message"]?.contains("svg") == true)
        await server.stop()
        await origin.stop()
    }

    @Test func alwaysRasterizeDrawsWhenNoFormatIsNamedAndSanitisingCanBeTurnedOff() async throws {
        let origin = try await TestOrigin()
        origin.image("/test1.svg", Self.test1, type: "image/svg+xml")
        let source = origin.url("/test1.svg")
        let rasterizing = try await ServerHarness(pipeline: { $0.alwaysRasterizeSVG = true })
        let png = try await rasterizing.request(Self.path("rs:fill:40:40", source))
        #expect(png.status == 200 && png.header("Content-Type") == "image/png")
        let webp = try await rasterizing.request(Self.path("", source), headers: [("Accept", "image/webp")])
        #expect(webp.status == 200 && webp.header("Content-Type") == "image/webp")
        let svg = try await rasterizing.request(Self.path("", source, ext: "svg"))
        #expect(svg.status == 200 && svg.body == Self.sanitized)
        await rasterizing.stop()
        let trusting = try await ServerHarness(pipeline: { $0.sanitizeSVG = false })
        let asIs = try await trusting.request(Self.path("w:10", source))
        #expect(asIs.status == 200 && asIs.body == Self.test1)
        await trusting.stop()
        await origin.stop()
    }

    /// A sanitised SVG is stored as a variant: after a restart it is read from disk, not sanitised again (sanitising
    /// counts as a render), whatever the options (one document per source), and a drawn variant of the same options
    /// never answers a request for the SVG itself.
    @Test func aSanitisedSVGIsStoredAndServedAfterARestart() async throws {
        let origin = try await TestOrigin()
        origin.image("/test1.svg", Self.test1, type: "image/svg+xml")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-svg-\(UUID().uuidString)")
        let source = origin.url("/test1.svg")
        /// What each path answers on a fresh server over `directory`, and how many renders (sanitising too) it made.
        func answers(_ paths: [String]) async throws -> (answers: [ServerHarness.Answer], renders: Int) {
            let server = try await ServerHarness(directory: directory)
            var answers: [ServerHarness.Answer] = []
            for path in paths { answers.append(try await server.request(path)) }
            let renders = server.metric("thumbcache_render_duration_seconds_count")
            await server.stop(removingDirectory: false)
            return (answers, renders)
        }
        // A drawn PNG of the same options first: stored under the render's name, which the SVG must not take.
        let first = try await answers([Self.path("rs:fill:40:40", source, ext: "png"), Self.path("rs:fill:40:40", source)])
        #expect(first.renders == 2, "the drawing and one sanitising: \(first.renders)")
        #expect(first.answers[1].body == Self.sanitized && first.answers[1].header("Content-Type") == "image/svg+xml")
        let again = try await answers([Self.path("rs:fill:40:40", source), Self.path("w:7", source, ext: "svg"),
                                       Self.path("rs:fill:40:40", source, ext: "png")])
        #expect(again.renders == 0, "the stored variants: \(again.renders) renders")
        #expect(again.answers.map(\.status) == [200, 200, 200])
        #expect(again.answers[0].body == Self.sanitized && again.answers[0].header("X-Thumbcache") == "disk")
        #expect(again.answers[1].body == Self.sanitized)
        #expect(again.answers[2].header("Content-Type") == "image/png")
        // `raw` is the source as fetched, never the sanitised variant.
        let raw = try await answers([Self.path("raw:1", source)])
        #expect(raw.answers[0].body == Self.test1 && raw.renders == 0)
        await origin.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A circle in a 100x100 document; `scale` declares it that many times larger (the same drawing).
    static func circle(scale: Int = 1) -> Data {
        Data("""
            <svg xmlns='http://www.w3.org/2000/svg' width='\(100 * scale)' height='\(100 * scale)' viewBox='0 0 100 100'>
            <circle cx='50' cy='50' r='37.3' fill='#08f'/></svg>
            """.utf8)
    }

    /// The largest difference of any channel between two images of one size.
    static func largestDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        zip(a.pixels, b.pixels).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    /// imgproxy enlarges a vector whatever `enlarge` says, and libvips draws it at that size: a 100x100 SVG asked
    /// at 400x400 is drawn at 400 (the circle's edge as sharp as a document declared 400x400), not the 100-pixel
    /// drawing upsampled. A raster of the same size is still not enlarged without `enlarge`.
    @Test func aVectorIsDrawnEnlargedAtTheSizeAsked() async throws {
        let origin = try await TestOrigin()
        origin.image("/small.svg", Self.circle(), type: "image/svg+xml")
        let server = try await ServerHarness()
        let source = origin.url("/small.svg")
        let reference = try ImageDecoder.decode(Self.circle(scale: 4))
        #expect((reference.width, reference.height) == (400, 400))
        for options in ["rs:fit:400:400", "rs:fit:400:400:1", "rs:fill:400:400", "w:400"] {
            let answer = try await server.request(Self.path(options, source, ext: "png"))
            #expect(answer.status == 200, "\(options): \(answer.json)")
            let drawn = try ImageDecoder.decode(answer.body)
            #expect((drawn.width, drawn.height) == (400, 400), "\(options)")
            #expect(Self.largestDifference(drawn, reference) <= 1, "\(options): drawn, not upsampled")
        }
        // With dpr too.
        let dpr = try await server.request(Self.path("rs:fit:200:200/dpr:2", source, ext: "png"))
        let dprInfo = try ImageDecoder.probe(dpr.body)
        #expect((dprInfo.width, dprInfo.height) == (400, 400))
        // The 100-pixel drawing as a PNG: not enlarged without `enlarge`; enlarged, its edge is visibly softer.
        origin.image("/small.png", try ImageEncoder.encode(ImageDecoder.decode(Self.circle()), as: .png), type: "image/png")
        let upsampled = try await server.request(Self.path("rs:fit:400:400:1", origin.url("/small.png")))
        #expect(Self.largestDifference(try ImageDecoder.decode(upsampled.body), reference) > 16)
        let raster = try await server.request(Self.path("rs:fit:400:400", origin.url("/small.png")))
        #expect(try ImageDecoder.probe(raster.body).width == 100)
        await server.stop()
        await origin.stop()
    }

    /// The pixel limit bounds what is drawn (imgproxy fits a vector to it): enlarged past it, the drawing stops at
    /// the limit and the resizer makes up the rest, so the answer still has the size asked.
    @Test func anEnlargedDrawingStaysWithinThePixelLimit() async throws {
        let origin = try await TestOrigin()
        origin.image("/small.svg", Self.circle(), type: "image/svg+xml")
        let server = try await ServerHarness(pipeline: { $0.maxPixels = 200 * 200 })
        let answer = try await server.request(Self.path("rs:fit:400:400", origin.url("/small.svg"), ext: "png"))
        #expect(answer.status == 200, "\(answer.json)")
        let drawn = try ImageDecoder.decode(answer.body)
        #expect((drawn.width, drawn.height) == (400, 400))
        // Drawn at 200 and upsampled: softer than the drawing at 400.
        #expect(Self.largestDifference(drawn, try ImageDecoder.decode(Self.circle(scale: 4))) > 16)
        await server.stop()
        await origin.stop()
    }

    /// A drawn SVG that names the origin (an image, a stylesheet, a use, an entity) makes no request of it.
    @Test func drawingFetchesNothingTheSVGNames() async throws {
        let origin = try await TestOrigin()
        let pixel = origin.url("/pixel.png")
        origin.image("/pixel.png", Fixtures.png, type: "image/png")
        origin.image("/refs.svg", Data("""
            <?xml version="1.0"?><!DOCTYPE svg [<!ENTITY e SYSTEM "\(pixel)">]>
            <svg xmlns='http://www.w3.org/2000/svg' width='40' height='40'><style>@import url("\(pixel)");</style>
            <image href='\(pixel)' width='40' height='40'/><use href='\(pixel)#a'/><text>&e;</text></svg>
            """.utf8), type: "image/svg+xml")
        let server = try await ServerHarness()
        let answer = try await server.request(Self.path("w:20/f:png", origin.url("/refs.svg")))
        #expect([200, 422].contains(answer.status))
        #expect(origin.count("/pixel.png") == 0)
        await server.stop()
        await origin.stop()
    }
}
