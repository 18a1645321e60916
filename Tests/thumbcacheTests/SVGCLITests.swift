import BombTestSupport
import Foundation
import ImageDecode
import OriginTestSupport
import Testing

/// SVG through the CLI as a user runs it: `thumbnail` draws it at the thumbnail's size or writes it back sanitised
/// (`--format svg`), and `get` does the same through the cache (passed through for `--options` naming no format).
@Suite(.serialized) struct SVGCLITests {
    static let test1 = Fixtures.directory.appendingPathComponent("svg/test1.svg")
    static let sanitized = try! Data(contentsOf: Fixtures.directory.appendingPathComponent("svg/test1.sanitized.svg"))

    @Test func thumbnailDrawsAnSVGOrWritesItBackSanitised() throws {
        let directory = try ThumbcacheChild.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let png = directory.appendingPathComponent("t.png").path
        let drawn = try ThumbcacheChild.run(["thumbnail", Self.test1.path, "--size", "64", "-o", png])
        #expect(drawn.status == 0, "\(drawn.stderr)")
        let info = try ImageDecoder.probe(.file(png))
        #expect(info.format == .png && (info.width, info.height) == (64, 32))
        let svg = directory.appendingPathComponent("t.svg").path
        let passed = try ThumbcacheChild.run(["thumbnail", Self.test1.path, "--size", "64", "-o", svg])
        #expect(passed.status == 0, "\(passed.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: svg)) == Self.sanitized)
        // --options naming no format: serve's rule, the SVG itself; naming one: drawn.
        let options = try ThumbcacheChild.run(["thumbnail", Self.test1.path, "--options", "rs:fill:40:40",
                                               "--output-dir", directory.path])
        let written = try? Data(contentsOf: directory.appendingPathComponent("test1.svg"))
        #expect(options.status == 0 && written == Self.sanitized, "\(options.stderr)")
        // A raster asked as svg: refused, one line.
        let refused = try ThumbcacheChild.run(["thumbnail", Fixtures.directory.appendingPathComponent("testorig.jpg").path,
                                               "--size", "64", "--format", "svg", "-o", directory.appendingPathComponent("x.svg").path])
        #expect(refused.status == 1 && refused.stderr.contains("svg is answered only for svg sources"), "\(refused.stderr)")
    }

    @Test func getDrawsOrPassesAnSVGThroughTheCache() throws {
        let server = try OriginServer()
        defer { server.shutdown() }
        let directory = try ThumbcacheChild.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = try Data(contentsOf: Self.test1)
        server.route("/logo.svg") { _ in
            .respond(status: 200, headers: [("Content-Type", "image/svg+xml"), ("Cache-Control", "max-age=3600")], body: body)
        }
        let cache = directory.appendingPathComponent("cache").path
        let png = directory.appendingPathComponent("g.png").path
        let thumbnail = try ThumbcacheChild.run(["get", server.url("/logo.svg"), "--size", "64", "-o", png, "--cache-dir", cache])
        #expect(thumbnail.status == 0, "\(thumbnail.stderr)")
        let info = try ImageDecoder.probe(.file(png))
        #expect(info.format == .png && (info.width, info.height) == (64, 32))
        let svg = directory.appendingPathComponent("g.svg").path
        let passed = try ThumbcacheChild.run(["get", server.url("/logo.svg"), "--options", "w:50", "-o", svg, "--cache-dir", cache])
        #expect(passed.status == 0, "\(passed.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: svg)) == Self.sanitized)
        let webp = directory.appendingPathComponent("g.webp").path
        let drawn = try ThumbcacheChild.run(["get", server.url("/logo.svg"), "--options", "w:50", "-o", webp, "--cache-dir", cache])
        #expect(drawn.status == 0, "\(drawn.stderr)")
        let drawnInfo = try ImageDecoder.probe(.file(webp))
        #expect(drawnInfo.format == .webp && drawnInfo.width == 50)
        #expect(server.requestCount("/logo.svg") == 1)
    }
}
