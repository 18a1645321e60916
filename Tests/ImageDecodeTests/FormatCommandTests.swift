import Foundation
import Testing
@testable import ImageDecode

/// `thumbcache thumbnail` with the formats of issue 12: WebP/GIF/AVIF in, WebP/AVIF out.
@Suite(.enabled(if: CLI.binary != nil, "thumbcache executable not built next to the tests"))
struct FormatCommandTests {
    @Test func writesWebPAndAVIFFromEveryInputFormat() throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for input in ["gif/static.gif", "webp/lossy-alpha.webp", "avif/icc-444.avif"] {
            for format in ["webp", "avif"] {
                let output = directory.appendingPathComponent("out.\(format)")
                let path = Fixtures.directory.appendingPathComponent(input).path
                let run = try CLI.run(["thumbnail", path, "--size", "48", "--format", format, "--quality", "60", "-o", output.path])
                #expect(run.status == 0, "\(input) → \(format): \(run.stderr)")
                let info = try ImageDecoder.probe(Data(contentsOf: output))
                #expect(info.format.rawValue == format && max(info.width, info.height) == 48, "\(input) → \(format)")
            }
        }
    }

    @Test func outputExtensionChoosesTheFormat() throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("small.avif")
        let run = try CLI.run(["thumbnail", Fixtures.directory.appendingPathComponent("testorig.jpg").path, "--size", "32", "-o", output.path])
        #expect(run.status == 0)
        #expect(ImageFormat.sniff(try Data(contentsOf: output)) == .avif)
    }

    @Test func gifOutputIsAUsageError() throws {
        let run = try CLI.run(["thumbnail", Fixtures.directory.appendingPathComponent("gif/static.gif").path, "--size", "32",
                               "--format", "gif", "-o", "/dev/null"])
        #expect(run.status == 64 && run.stderr.contains("cannot write gif"), "\(run.stderr)")
    }
}
