import Foundation
import Testing
import OriginTestSupport
import BombTestSupport
@testable import ImageDecode

/// `thumbcache thumbnail` and `get` with TIFF, BMP and ICO: read from each, written as each (by `--format` and by the
/// output's extension), and `get` of a BMP from a loopback origin.
@Suite(.enabled(if: CLI.binary != nil, "thumbcache executable not built next to the tests"))
struct TIFFBMPICOCommandTests {
    static let inputs = ["tiff/tiled-jpeg.tiff", "bmp/1-bpp.bmp", "ico/multi-png.ico", "tiff/cmyk-icc.tiff"]

    @Test func everyInputToEveryNewOutput() throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for input in Self.inputs {
            for format in ["tiff", "bmp", "ico"] {
                let output = directory.appendingPathComponent("out.\(format)")
                let path = Fixtures.directory.appendingPathComponent(input).path
                let run = try CLI.run(["thumbnail", path, "--size", "48", "--format", format, "-o", output.path])
                #expect(run.status == 0, "\(input) → \(format): \(run.stderr)")
                let info = try ImageDecoder.probe(Data(contentsOf: output))
                #expect(info.format.rawValue == format && max(info.width, info.height) == 48, "\(input) → \(format)")
            }
        }
    }

    /// `-o NAME.tif` / `.bmp` / `.ico` chooses the format, and `f:tiff` in --options does too.
    @Test func extensionAndOptionChooseTheFormat() throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.directory.appendingPathComponent("testorig.jpg").path
        for (name, format) in [("a.tif", ImageFormat.tiff), ("a.bmp", .bmp), ("a.ico", .ico)] {
            let output = directory.appendingPathComponent(name)
            let run = try CLI.run(["thumbnail", input, "--size", "32", "-o", output.path])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(ImageFormat.sniff(try Data(contentsOf: output)) == format, "\(name)")
        }
        let output = directory.appendingPathComponent("b.out")
        let run = try CLI.run(["thumbnail", input, "--options", "rs:fit:40:40/f:tiff", "-o", output.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(ImageFormat.sniff(try Data(contentsOf: output)) == .tiff)
    }

    @Test func hostileBMPIsRefusedWithExitOne() throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // 5000 x 5000 24-bit with 4 bytes of pixels.
        var bytes = Array("BM".utf8) + [UInt8](repeating: 0, count: 8) + [54, 0, 0, 0, 40, 0, 0, 0]
        bytes += [0x88, 0x13, 0, 0, 0x88, 0x13, 0, 0, 1, 0, 24, 0] + [UInt8](repeating: 0, count: 24) + [1, 2, 3, 4]
        let input = directory.appendingPathComponent("bad.bmp")
        try Data(bytes).write(to: input)
        let run = try CLI.run(["thumbnail", input.path, "--size", "32", "-o", directory.appendingPathComponent("x.png").path])
        #expect(run.status == 1 && run.stderr.contains("truncated"), "\(run.status) \(run.stderr)")
    }

    @Test func getReadsABMPFromTheOrigin() throws {
        let server = try OriginServer()
        defer { server.shutdown() }
        let bmp = try Data(contentsOf: Fixtures.directory.appendingPathComponent("bmp/32-bpp-with-alpha-self-gen.bmp"))
        server.route("/i.bmp") { _ in
            .respond(status: 200, headers: [("Content-Type", "image/bmp"), ("Cache-Control", "max-age=3600")], body: bmp)
        }
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("o.png")
        let run = try ThumbcacheChild.run(["get", server.url("/i.bmp"), "--options", "rs:fit:50:50/f:png", "-o", output.path,
                                           "--cache-dir", directory.appendingPathComponent("cache").path])
        #expect(run.status == 0, "\(run.stderr)")
        let info = try ImageDecoder.probe(Data(contentsOf: output))
        #expect(info.format == .png && info.width == 50 && info.hasAlpha)
    }
}
