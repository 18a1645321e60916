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

    /// GIF out (issue 32): `--format gif` and `-o x.gif`; an animated GIF given processing options stays animated in
    /// GIF and WebP, and `--max-animation-frames 1` (or `da:1`) gives its first frame.
    @Test func writesGIFAndKeepsAnAnimationAnimated() throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let still = directory.appendingPathComponent("still.gif")
        let fromJPEG = try CLI.run(["thumbnail", Fixtures.directory.appendingPathComponent("testorig.jpg").path, "--size", "32",
                                    "-o", still.path])
        #expect(fromJPEG.status == 0, "\(fromJPEG.stderr)")
        let info = try ImageDecoder.probe(Data(contentsOf: still))
        #expect(info.format == .gif && info.width == 32 && info.frameCount == 1)
        let frames = (0..<4).map { i in
            PixelBuffer(width: 20, height: 10, channels: 3, pixels: Array(repeating: [UInt8(i * 60), 100, 200], count: 200).flatMap { $0 })
        }
        let input = directory.appendingPathComponent("in.gif")
        try EncodeSettings(format: .gif).encode(frames: frames, delays: [80, 80, 80, 80], loopCount: 0)
            .data.write(to: input)
        for (name, extra, expected) in [("a.gif", [String](), 4), ("a.webp", [], 4), ("first.gif", ["--max-animation-frames", "1"], 1)] {
            let output = directory.appendingPathComponent(name)
            let run = try CLI.run(["thumbnail", input.path, "--options", "rs:fit:10:10", "-o", output.path] + extra)
            #expect(run.status == 0, "\(name): \(run.stderr)")
            let made = try ImageDecoder.probe(Data(contentsOf: output))
            #expect(made.frameCount == expected && made.width == 10 && made.height == 5, "\(name): \(made)")
        }
        let disabled = directory.appendingPathComponent("da.gif")
        #expect(try CLI.run(["thumbnail", input.path, "--options", "rs:fit:10:10/da:1", "-o", disabled.path]).status == 0)
        #expect(try ImageDecoder.probe(Data(contentsOf: disabled)).frameCount == 1)
    }
}
