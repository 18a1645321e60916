import Foundation
import OriginTestSupport
import Testing
@testable import ImageDecode

/// `thumbcache thumbnail` and `get` writing HEIC (issue 32): `--format heic`, the `.heic`/`.heif` extensions, and a bad
/// quality refused as for every format.
@Suite(.enabled(if: CLI.binary != nil, "thumbcache executable not built next to the tests"))
struct HEICOutCommandTests {
    let source = Fixtures.directory.appendingPathComponent("testorig.jpg").path  // 227×149

    @Test func thumbnailWritesHEICByFormatOrExtension() throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let named = directory.appendingPathComponent("named.out")
        let run = try CLI.run(["thumbnail", source, "--size", "64", "--format", "heic", "-o", named.path])
        #expect(run.status == 0, "\(run.stderr)")
        let info = try ImageDecoder.probe(Data(contentsOf: named))
        #expect(info.format == .heic && info.width == 64 && info.height == 42)
        for name in ["x.heic", "x.HEIF"] {
            let output = directory.appendingPathComponent(name)
            let byExtension = try CLI.run(["thumbnail", source, "--size", "64", "-o", output.path])
            #expect(byExtension.status == 0, "\(name): \(byExtension.stderr)")
            #expect(try Data(contentsOf: output) == Data(contentsOf: named), "\(name): the same encode")
        }
        let lower = directory.appendingPathComponent("q30.heic")
        #expect(try CLI.run(["thumbnail", source, "--size", "64", "--quality", "30", "-o", lower.path]).status == 0)
        #expect(try Data(contentsOf: lower).count < Data(contentsOf: named).count)
        // With alpha: kept.
        let alpha = directory.appendingPathComponent("alpha.heic")
        let alphaSource = Fixtures.directory.appendingPathComponent("rocket-adobergb-alpha.png").path
        #expect(try CLI.run(["thumbnail", alphaSource, "--size", "48", "-o", alpha.path]).status == 0)
        #expect(try ImageDecoder.decode(Data(contentsOf: alpha)).channels == 4)
    }

    @Test func aBadQualityIsAUsageErrorAndNothingIsWritten() throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("bad.heic")
        for arguments in [["--quality", "0"], ["--quality", "101"], ["--format-quality", "heic=0"], ["--format-quality", "heic=x"]] {
            let run = try CLI.run(["thumbnail", source, "--size", "32", "-o", output.path] + arguments)
            #expect(run.status == 64, "\(arguments): \(run.status) \(run.stderr)")
            #expect(run.stderr.contains("quality") || run.stderr.contains("heic="), "\(arguments): \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: output.path))
        // heic is a format --format-quality knows now.
        #expect(try CLI.run(["thumbnail", source, "--size", "32", "-o", output.path, "--format-quality", "heic=50"]).status == 0)
    }

    @Test func getWritesHEIC() throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try OriginServer()
        defer { server.shutdown() }
        let body = try Data(contentsOf: URL(fileURLWithPath: source))
        server.route("/photo.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=60")], body: body) }
        let cache = ["--cache-dir", directory.appendingPathComponent("cache").path]
        let output = directory.appendingPathComponent("got.heic")
        let run = try CLI.run(["get", server.url("/photo.jpg"), "--size", "64", "-o", output.path] + cache)
        #expect(run.status == 0, "\(run.stderr)")
        let info = try ImageDecoder.probe(Data(contentsOf: output))
        #expect(info.format == .heic && info.width == 64)
        let processed = directory.appendingPathComponent("processed.out")
        let options = try CLI.run(["get", server.url("/photo.jpg"), "--options", "rs:fill:50:50/f:heic", "-o", processed.path] + cache)
        #expect(options.status == 0, "\(options.stderr)")
        let fill = try ImageDecoder.probe(Data(contentsOf: processed))
        #expect(fill.format == .heic && fill.width == 50 && fill.height == 50)
        #expect(server.requestCount("/photo.jpg") == 1)
    }
}
