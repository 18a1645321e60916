import BombTestSupport
import Foundation
import ImageDecode
import OriginTestSupport
import Testing

/// `thumbcache thumbnail` at each format's default quality, `--format-quality` and `THUMBCACHE_FORMAT_QUALITY`
/// (issue 20), and `get` storing a processed image per quality, through the built executable.
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
                      (["--format-quality", "jpeg=80,svg=50"], [:], "svg=50"),
                      (["--format-quality", "avif"], [:], "FORMAT=QUALITY"),
                      ([], ["THUMBCACHE_FORMAT_QUALITY": "avif=60,webp=x"], "THUMBCACHE_FORMAT_QUALITY item webp=x")])
    func aBadItemIsAUsageErrorNamingIt(_ arguments: [String], _ environment: [String: String], _ named: String) throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try ThumbcacheChild.run(["thumbnail", source, "--size", "32", "-o", directory.appendingPathComponent("x.jpg").path]
                                          + arguments, environment: environment)
        #expect(run.status == 64 && run.stderr.contains(named), "\(run.status) \(run.stderr)")
    }

    /// `get --format-quality` renders what `thumbnail` does at that quality, and a stored processed image is used
    /// again only at the quality it was made at.
    @Test func getStoresAProcessedImagePerQuality() throws {
        let server = try OriginServer()
        defer { server.shutdown() }
        server.route("/q.jpg") { _ in
            .respond(status: 200, headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "max-age=3600")], body: Fixtures.jpeg)
        }
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = directory.appendingPathComponent("cache").path, output = directory.appendingPathComponent("o.avif")
        let get = ["get", server.url("/q.jpg"), "--options", "rs:fit:80:80", "-o", output.path, "--cache-dir", cache, "--json"]
        /// Whether the run rendered the image (else it was the stored one), from its JSON report.
        func rendered(_ quality: String) throws -> Bool? {
            let run = try ThumbcacheChild.run(get + ["--format-quality", quality])
            #expect(run.status == 0, "\(run.stderr)")
            return (try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])?["rendered"] as? Bool
        }
        #expect(try rendered("avif=90") == true)
        let at90 = try Data(contentsOf: output)
        let local = directory.appendingPathComponent("local.avif")
        #expect(try CLI.run(["thumbnail", source, "--options", "rs:fit:80:80", "--quality", "90", "-o", local.path]).status == 0)
        #expect(at90 == (try Data(contentsOf: local)))
        #expect(try rendered("avif=90") == false, "the stored one, at its quality")
        #expect(try rendered("avif=40") == true, "another quality is rendered again")
        #expect(try Data(contentsOf: output).count < at90.count)
        #expect(server.requestCount("/q.jpg") == 1)
    }
}
