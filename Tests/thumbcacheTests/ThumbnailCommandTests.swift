import BombTestSupport
import Foundation
import Testing
@testable import ImageDecode

/// Runs the `thumbcache` executable that `swift build --build-tests` puts next to the test bundle.
enum CLI {
    static let binary: URL? = FileManager.default.isExecutableFile(atPath: ThumbcacheChild.executable.path) ? ThumbcacheChild.executable : nil

    /// Runs it capped at 1 GiB of address space, as every child of the tests runs.
    static func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let run = try ThumbcacheChild.run(arguments)
        return (run.status, run.stderr)
    }

    static func temporaryDirectory() throws -> URL { try ThumbcacheChild.temporaryDirectory() }
}

@Suite(.enabled(if: CLI.binary != nil, "thumbcache executable not built next to the tests"))
struct ThumbnailCommandTests {
    let fixtures = Fixtures.directory.path

    @Test func writesAThumbnailAndExitsZero() throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.png")
        let result = try CLI.run(["thumbnail", "\(fixtures)/testorig.jpg", "--size", "64", "--fit", "cover", "-o", output.path])
        #expect(result.status == 0 && result.stderr.isEmpty)
        let thumbnail = try Data(contentsOf: output)
        #expect(ImageFormat.sniff(thumbnail) == .png)  // from the -o extension
        let image = try ImageDecoder.decode(thumbnail)
        #expect((image.width, image.height) == (64, 64))
    }

    @Test func noSRGBKeepsTheStoredColours() throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let converted = directory.appendingPathComponent("srgb.png"), stored = directory.appendingPathComponent("stored.png")
        let source = "\(fixtures)/rocket.jpg"
        #expect(try CLI.run(["thumbnail", source, "--size", "48", "-o", converted.path]).status == 0)
        #expect(try CLI.run(["thumbnail", source, "--size", "48", "--no-srgb", "-o", stored.path]).status == 0)
        let a = try ImageDecoder.decode(Data(contentsOf: converted)), b = try ImageDecoder.decode(Data(contentsOf: stored))
        // How exact the conversion is, is ImageDecode's to test (ColorManagementTests); here: the flag reaches it.
        #expect(Fixtures.meanAbsoluteDifference(a, b) > 2, "the flag must change the output of an Adobe RGB source")
    }

    @Test func refusedInputGivesOneLineAndNonZeroStatus() throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try CLI.run(["thumbnail", "\(fixtures)/pngsuite/xcsn0g01.png", "\(fixtures)/pngsuite/basn6a08.png",
                                  "--size", "16", "--output-dir", directory.path])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains("xcsn0g01.png: corrupt image data: IDAT: CRC error") == true, "\(result.stderr)")
        // The good input is still converted, as PNG because it has alpha.
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("basn6a08.png").path))
    }

    @Test func usageErrorsAreReported() throws {
        let result = try CLI.run(["thumbnail", "a.jpg", "b.jpg", "--size", "16", "-o", "x.jpg"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("-o takes a single input"))
    }
}
