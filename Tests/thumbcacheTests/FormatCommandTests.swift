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

    /// `thumbnail INPUT -o NAME.webp` (or `.avif`), no `--format`: the name's extension chooses the format.
    /// Before issue 14 (E16), `-o x.webp` silently wrote a JPEG under that name.
    @Test(arguments: [ImageFormat.webp, .avif]) func outputExtensionChoosesTheFormat(_ format: ImageFormat) throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.directory.appendingPathComponent("testorig.jpg")
        let output = directory.appendingPathComponent("small.\(format.rawValue)")
        let run = try CLI.run(["thumbnail", input.path, "--size", "32", "-o", output.path])
        #expect(run.status == 0, "\(run.stderr)")
        let bytes = try Data(contentsOf: output)
        switch format {
        case .webp: #expect(bytes.prefix(4) == Data("RIFF".utf8) && bytes.dropFirst(8).prefix(4) == Data("WEBP".utf8), "\(bytes.prefix(16) as NSData)")
        default: #expect(bytes.dropFirst(4).prefix(4) == Data("ftyp".utf8) && ImageFormat.sniff(bytes) == .avif, "\(bytes.prefix(16) as NSData)")
        }
        // Decoded back: the input's shape at 32 px on its long side.
        let original = try ImageDecoder.probe(Data(contentsOf: input))
        let thumbnail = try ImageDecoder.decode(bytes)
        #expect(original.width > original.height, "testorig.jpg is landscape")
        #expect(thumbnail.width == 32 && thumbnail.height == Int((32 * Double(original.height) / Double(original.width)).rounded()),
                "\(thumbnail.width)x\(thumbnail.height) from \(original.width)x\(original.height)")
    }

    @Test func gifOutputIsAUsageError() throws {
        let run = try CLI.run(["thumbnail", Fixtures.directory.appendingPathComponent("gif/static.gif").path, "--size", "32",
                               "--format", "gif", "-o", "/dev/null"])
        #expect(run.status == 64 && run.stderr.contains("cannot write gif"), "\(run.stderr)")
    }
}
