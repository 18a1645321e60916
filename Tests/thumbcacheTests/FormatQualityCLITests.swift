import BombTestSupport
import Foundation
import Testing
import ImageDecode

/// `thumbcache thumbnail` at each format's default quality, `--format-quality` and `THUMBCACHE_FORMAT_QUALITY`
/// (issue 20), through the built executable.
@Suite(.enabled(if: CLI.binary != nil, "thumbcache executable not built next to the tests"))
struct FormatQualityCLITests {
    let source = Fixtures.directory.appendingPathComponent("testorig.jpg").path

    /// The bytes of `thumbnail source --size 128 --format avif` with `arguments` added.
    func avif(_ arguments: [String], environment: [String: String] = [:]) throws -> Data {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.avif")
        let run = try ThumbcacheChild.run(["thumbnail", source, "--size", "128", "--format", "avif", "-o", output.path] + arguments,
                                          environment: environment)
        #expect(run.status == 0, "\(arguments) \(environment): \(run.stderr)")
        return try Data(contentsOf: output)
    }

    @Test func aFormatIsEncodedAtItsOwnDefault() throws {
        let atDefault = try avif([])
        #expect(ImageFormat.sniff(atDefault) == .avif)
        #expect(atDefault == (try avif(["--quality", "\(ImageEncoder.defaultQuality(for: .avif))"])))
        #expect(atDefault.count < (try avif(["--quality", "90"])).count)
    }

    @Test func formatQualityAndItsVariableSetTheDefaultAndQualityWins() throws {
        let at90 = try avif(["--quality", "90"])
        #expect(try avif(["--format-quality", "jpeg=70,avif=90"]) == at90)
        #expect(try avif(["--format-quality", "webp=50", "--format-quality", "avif=90"]) == at90)
        #expect(try avif([], environment: ["THUMBCACHE_FORMAT_QUALITY": "avif=90,webp=60"]) == at90)
        #expect(try avif(["--format-quality", "avif=90"], environment: ["THUMBCACHE_FORMAT_QUALITY": "avif=30"]) == at90,
                "the flag wins over the variable")
        #expect(try avif(["--format-quality", "avif=30", "--quality", "90"]) == at90, "--quality wins over the default")
    }

    @Test(arguments: [(["--format-quality", "avif=0"], [:], "avif=0"),
                      (["--format-quality", "jpeg=80,gif=50"], [:], "gif=50"),
                      (["--format-quality", "avif"], [:], "FORMAT=QUALITY"),
                      ([], ["THUMBCACHE_FORMAT_QUALITY": "avif=60,webp=x"], "THUMBCACHE_FORMAT_QUALITY item webp=x")])
    func aBadItemIsAUsageErrorNamingIt(_ arguments: [String], _ environment: [String: String], _ named: String) throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try ThumbcacheChild.run(["thumbnail", source, "--size", "32", "-o", directory.appendingPathComponent("x.jpg").path]
                                          + arguments, environment: environment)
        #expect(run.status == 64 && run.stderr.contains(named), "\(run.status) \(run.stderr)")
    }
}
