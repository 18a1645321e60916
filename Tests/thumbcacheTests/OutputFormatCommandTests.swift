import Foundation
import OriginTestSupport
import Testing
@testable import ImageDecode

/// The one output-format rule through the CLI: `thumbnail --options` naming no format keeps a written input
/// format (every written format preferred), else JPEG, or PNG with alpha; `get --options` follows serve's
/// preferred formats (imgproxy's `jpeg,png,gif`).
@Suite(.enabled(if: CLI.binary != nil, "thumbcache executable not built next to the tests"))
struct OutputFormatCommandTests {
    static func png(alpha: Bool) throws -> Data {
        let pixel: [UInt8] = alpha ? [10, 200, 10, 100] : [10, 200, 10]
        return try ImageEncoder.encode(PixelBuffer(width: 20, height: 10, channels: alpha ? 4 : 3,
                                                   pixels: Array(repeating: pixel, count: 200).flatMap { $0 }), as: .png)
    }

    @Test func thumbnailWithOptionsKeepsAWrittenFormatElseJPEGOrPNG() throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let webp = try ImageEncoder.encode(PixelBuffer(width: 20, height: 10, channels: 3, pixels: Array(repeating: 90, count: 600)),
                                           as: .webp)
        let inputs: [(String, Data, String)] = [
            ("photo.heic", try Data(contentsOf: Fixtures.directory.appendingPathComponent("heic/heif.heif")), "photo.heic"),
            ("still.webp", webp, "still.webp"),
            ("alpha.png", try Self.png(alpha: true), "alpha.png"),
            ("page.bmp", try Data(contentsOf: Fixtures.directory.appendingPathComponent("bmp/8-bpp-rle-small.bmp")), "page.bmp"),
        ]
        for (name, data, _) in inputs { try data.write(to: directory.appendingPathComponent(name)) }
        let out = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let run = try CLI.run(["thumbnail"] + inputs.map { directory.appendingPathComponent($0.0).path }
                              + ["--options", "rs:fit:8:8", "--output-dir", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        for (name, _, written) in inputs {
            let data = try Data(contentsOf: out.appendingPathComponent(written))
            #expect(ImageFormat.sniff(data)?.fileExtensions.contains(String(written.split(separator: ".").last!)) == true, "\(name) → \(written)")
        }
    }

    @Test func getWithOptionsFollowsThePreferredFormats() throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try OriginServer()
        defer { server.shutdown() }
        let heic = try Data(contentsOf: Fixtures.directory.appendingPathComponent("heic/heif.heif"))
        let alpha = try Self.png(alpha: true)
        server.route("/photo.heic") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=60")], body: heic) }
        server.route("/alpha.png") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=60")], body: alpha) }
        let cache = ["--cache-dir", directory.appendingPathComponent("cache").path]
        for (path, format) in [("/photo.heic", ImageFormat.jpeg), ("/alpha.png", .png)] {
            let output = directory.appendingPathComponent("got-" + String(path.dropFirst().prefix(while: { $0 != "." })))
            let run = try CLI.run(["get", server.url(path), "--options", "rs:fit:16:16", "-o", output.path] + cache)
            #expect(run.status == 0, "\(path): \(run.stderr)")
            #expect(ImageFormat.sniff(try Data(contentsOf: output)) == format, "\(path)")
        }
    }
}
