import BombTestSupport
import Foundation
import ImageDecode
import Testing
@testable import ThumbcacheKit

/// Issue 14, E16 (decode half) and B5 on the command line: --max-pixels, --max-decode-memory and warm's
/// --total-decode-memory; an -o naming a format thumbcache does not write is a usage error.
@Suite(.serialized) struct DecodeOptionsCLITests {
    let work: URL

    init() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-decode-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    func cleanUp() { try? FileManager.default.removeItem(at: work) }

    var cacheDir: String { work.appendingPathComponent("cache").path }

    func image(_ name: String, _ bytes: Data = Fixtures.jpeg) throws -> String {
        let url = work.appendingPathComponent(name)
        try bytes.write(to: url)
        return url.path
    }

    @Test func anOutputInAFormatNotWrittenIsAUsageError() throws {
        let input = try image("in.jpg")
        for arguments in [["thumbnail", input, "--size", "32", "-o", work.appendingPathComponent("x.jp2").path],
                          ["thumbnail", input, "--size", "32", "-o", work.appendingPathComponent("x.JP2").path],
                          ["get", input, "--size", "32", "--cache-dir", cacheDir, "-o", work.appendingPathComponent("x.jp2").path]] {
            let run = try CLITests.run(arguments)
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            // Every format written (`ImageFormat.isAskable`) with its extensions: "jpeg (.jpg, .jpeg), png (.png), … or svg (.svg)".
            let named = ImageFormat.askable.map { "\($0.rawValue) (\($0.fileExtensions.map { "." + $0 }.joined(separator: ", ")))" }
            #expect(run.stderr.contains("thumbcache writes " + named.dropLast().joined(separator: ", ") + " or " + named.last!), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("x.jp2").path))
        let conflict = try CLITests.run(["thumbnail", input, "--size", "32", "--format", "png", "-o", work.appendingPathComponent("x.jpg").path])
        #expect(conflict.status == 64 && conflict.stderr.contains("names jpeg but --format is png"), "\(conflict.stderr)")
        cleanUp()
    }

    @Test func getWritesTheFormatItsOutputNames() throws {
        let input = try image("in.jpg")
        let output = work.appendingPathComponent("out.png")
        let run = try CLITests.run(["get", input, "--size", "32", "--cache-dir", cacheDir, "-o", output.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(ImageFormat.sniff(try Data(contentsOf: output)) == .png)
        // A name without an image extension keeps the default format.
        let plain = work.appendingPathComponent("out.bin")
        #expect(try CLITests.run(["get", input, "--size", "32", "--cache-dir", cacheDir, "-o", plain.path]).status == 0)
        #expect(ImageFormat.sniff(try Data(contentsOf: plain)) == .jpeg)
        cleanUp()
    }

    @Test func maxPixelsIsAnOptionAndItsErrorNamesIt() throws {
        let input = try image("in.jpg")  // 227x149 = 33,823 pixels
        let get = try CLITests.run(["get", input, "--size", "32", "--cache-dir", cacheDir, "-o", "/dev/null", "--max-pixels", "30000"])
        #expect(get.status == 6 && get.stderr.contains("above the limit of 30000 pixels") && get.stderr.contains("--max-pixels"),
                "\(get.stderr)")
        #expect(try CLITests.run(["get", input, "--size", "32", "--cache-dir", cacheDir, "-o", "/dev/null",
                                  "--max-pixels", "40000"]).status == 0)
        let thumbnail = try CLITests.run(["thumbnail", input, "--size", "32", "-o", work.appendingPathComponent("t.jpg").path,
                                          "--max-pixels", "30000"])
        #expect(thumbnail.status == 1 && thumbnail.stderr.contains("--max-pixels"), "\(thumbnail.stderr)")
        let list = work.appendingPathComponent("urls.txt")
        try input.write(to: list, atomically: true, encoding: .utf8)
        let warm = try CLITests.run(["warm", list.path, "--sizes", "32", "--cache-dir", work.appendingPathComponent("warm").path,
                                     "--quiet", "--max-pixels", "30000"])
        #expect(warm.status == 1 && warm.stderr.contains("above the limit of 30000 pixels"), "\(warm.stderr)")
        for bad in ["0", "-5", "x"] {
            #expect(try CLITests.run(["get", input, "--size", "32", "--max-pixels", bad]).status == 64)
        }
        cleanUp()
    }

    @Test func decodeMemoryOptionsAreCheckedAndApplied() throws {
        let input = try image("progressive.jpg", Data(CraftedJPEG.flat(width: 2000, height: 1000, layout: .progressive)))
        let refused = try CLITests.run(["get", input, "--size", "32", "--cache-dir", cacheDir, "-o", "/dev/null",
                                        "--max-decode-memory", "1MiB"])
        #expect(refused.status == 6 && refused.stderr.contains("above the limit of 1.0 MiB"), "\(refused.stderr)")
        #expect(try CLITests.run(["get", input, "--size", "32", "--cache-dir", cacheDir, "-o", "/dev/null",
                                  "--max-decode-memory", "64MiB"]).status == 0)
        for bad in ["0", "1e30GB", "lots"] {
            #expect(try CLITests.run(["thumbnail", input, "--size", "32", "-o", "/dev/null", "--max-decode-memory", bad]).status == 64)
        }
        let list = work.appendingPathComponent("urls.txt")
        try input.write(to: list, atomically: true, encoding: .utf8)
        let small = try CLITests.run(["warm", list.path, "--cache-dir", cacheDir, "--quiet", "--total-decode-memory", "100MiB"])
        #expect(small.status == 64 && small.stderr.contains("must be at least --max-decode-memory (256MiB)"), "\(small.stderr)")
        let help = try CLITests.run(["warm", "--help"])
        #expect(String(decoding: help.stdout, as: UTF8.self).contains("--total-decode-memory"))
        cleanUp()
    }

    /// `warm --concurrency 8` over eight progressive JPEGs that each need about 54 MB of coefficients decoded whole
    /// (5 MB at the 1/8 of a 64 thumbnail, where only the coefficients the IDCT reads are kept), with 64
    /// MiB of decode memory in all, in a child capped at 1 GiB: every one is made, one decode at a time, and the
    /// peak stays near one decode's worth. Without the budget as many decode at once as the cooperative pool
    /// has threads (one per core: eight on an 8-core machine, over 430 MB).
    @Test func warmStaysWithinTheTotalDecodeMemory() throws {
        try #require(CappedProcess.available, "capped-run and thumbcache must be built beside the tests")
        var urls: [String] = []
        for index in 0..<8 {
            urls.append(try image("bomb-\(index).jpg", Data(CraftedJPEG.flat(width: 3000 + index * 8, height: 3000, layout: .progressive))))
        }
        let list = work.appendingPathComponent("bombs.txt")
        try urls.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        let warm = try CappedProcess.thumbcache(
            ["warm", list.path, "--sizes", "64", "--concurrency", "8", "--cache-dir", cacheDir, "--quiet",
             "--max-decode-memory", "64MiB", "--total-decode-memory", "64MiB"])
        #expect(warm.status == 0, "\(warm)")
        #expect(warm.peakBytes < 200 << 20, "\(warm)")
        cleanUp()
    }
}
