import BombTestSupport
import Foundation
import OriginTestSupport
import Testing
@testable import ImageDecode

/// `thumbcache thumbnail` and `get` with the formats of issue 32's HEIC and JPEG XL part.
@Suite(.enabled(if: CLI.binary != nil, "thumbcache executable not built next to the tests"))
struct HEICJXLCommandTests {
    @Test func thumbnailReadsHEICAndJXLAndWritesJXL() throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for input in ["heic/heif.heif", "heic/irot.heic", "jxl/8-bpp.jxl", "jxl/16-bpp-grayscale.jxl"] {
            for format in ["jpeg", "jxl"] {
                let output = directory.appendingPathComponent("out.\(format)")
                let path = Fixtures.directory.appendingPathComponent(input).path
                let run = try CLI.run(["thumbnail", path, "--size", "48", "--format", format, "-o", output.path])
                #expect(run.status == 0, "\(input) → \(format): \(run.stderr)")
                let info = try ImageDecoder.probe(Data(contentsOf: output))
                #expect(info.format.rawValue == format && max(info.width, info.height) == 48, "\(input) → \(format)")
            }
        }
        // The -o extension chooses JPEG XL; a rotated HEIC stays upright (portrait).
        let output = directory.appendingPathComponent("rotated.jxl")
        let run = try CLI.run(["thumbnail", Fixtures.directory.appendingPathComponent("heic/irot.heic").path, "--size", "40",
                               "-o", output.path])
        let info = try ImageDecoder.probe(Data(contentsOf: output))
        #expect(run.status == 0 && info.format == .jxl && info.height == 40 && info.width < 40, "\(run.stderr)")
    }

    /// libheif, libjxl, libavif and libtiff are opened when a file needs them (`CodecLibrary`): a JPEG thumbnail loads
    /// none, a HEIC only libheif, a JPEG XL only libjxl, and so on (the loader's own record, `LD_DEBUG=files`). With no
    /// loadable libheif (a broken libheif.so.1 first on LD_LIBRARY_PATH) a HEIC is refused naming what to install,
    /// `get` exits 69 (EX_UNAVAILABLE), and a JPEG still works.
    @Test func codecLibrariesAreLoadedWhenAFileNeedsThem() throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.png").path
        func loaded(_ input: String) throws -> Set<String> {
            let run = try ThumbcacheChild.run(["thumbnail", Fixtures.directory.appendingPathComponent(input).path, "--size", "32",
                                               "-o", output], environment: ["LD_DEBUG": "files"])
            #expect(run.status == 0, "\(input)")
            let libraries = ["libheif.so.1", "libde265.so.0", "libjxl.so.0.7", "libjxl_threads.so.0.7", "libavif.so.15",
                             "libtiff.so.6"]
            return Set(libraries.filter { run.stderr.contains("file=\($0) ") })
        }
        #expect(try loaded("testorig.jpg") == [])
        #expect(try loaded("heic/heif.heif") == ["libheif.so.1", "libde265.so.0"])
        #expect(try loaded("jxl/8-bpp.jxl") == ["libjxl.so.0.7", "libjxl_threads.so.0.7"])
        #expect(try loaded("avif/icc-444.avif") == ["libavif.so.15"])
        #expect(try loaded("tiff/alpha-icc.tiff") == ["libtiff.so.6"])

        let broken = directory.appendingPathComponent("libs")
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
        try Data("not a library".utf8).write(to: broken.appendingPathComponent("libheif.so.1"))
        let environment = ["LD_LIBRARY_PATH": broken.path]
        let heic = Fixtures.directory.appendingPathComponent("heic/heif.heif").path
        let thumbnail = try ThumbcacheChild.run(["thumbnail", heic, "--size", "32", "-o", output], environment: environment)
        #expect(thumbnail.status == 1 && thumbnail.stderr.contains("libheif.so.1 could not be loaded")
                && thumbnail.stderr.contains("install libheif1"), "\(thumbnail.stderr)")
        let get = try ThumbcacheChild.run(["get", heic, "--size", "32", "--cache-dir", directory.appendingPathComponent("cache").path,
                                           "-o", output], environment: environment)
        #expect(get.status == 69, "\(get.stderr)")
        let jpeg = try ThumbcacheChild.run(["thumbnail", Fixtures.directory.appendingPathComponent("testorig.jpg").path,
                                            "--size", "32", "-o", output], environment: environment)
        #expect(jpeg.status == 0, "\(jpeg.stderr)")
    }

    @Test func refusedHEICAndJXLInputsGiveOneLineEach() throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, source) in [("cut.heic", "heic/heif.heif"), ("cut.jxl", "jxl/8-bpp.jxl")] {
            let data = try Data(contentsOf: Fixtures.directory.appendingPathComponent(source))
            try data.prefix(data.count / 2).write(to: directory.appendingPathComponent(name))
        }
        let run = try CLI.run(["thumbnail", directory.appendingPathComponent("cut.heic").path,
                               directory.appendingPathComponent("cut.jxl").path, "--size", "32", "--output-dir", directory.path])
        let lines = run.stderr.split(separator: "\n")
        #expect(run.status == 1 && lines.count == 2, "\(run.stderr)")
        #expect(lines.allSatisfy { $0.contains("truncated") }, "\(run.stderr)")
    }

    /// `--decode-threads`: the JPEG XL decode may use several threads, and the thumbnail is byte-identical to one made
    /// on one (a 1000x1000 source: 16 of libjxl's groups); below 1 it is a usage error.
    @Test func decodeThreadsGiveTheSameThumbnail() throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = Fixtures.directory.appendingPathComponent("jxl/16-bpp-grayscale.jxl").path
        var made: [Data] = []
        for threads in ["1", "2"] {
            let output = directory.appendingPathComponent("t\(threads).png")
            let run = try CLI.run(["thumbnail", source, "--size", "300", "--decode-threads", threads, "-o", output.path])
            #expect(run.status == 0, "\(run.stderr)")
            made.append(try Data(contentsOf: output))
        }
        #expect(made.count == 2 && made[0] == made[1])
        let refused = try CLI.run(["thumbnail", source, "--size", "30", "--decode-threads", "0", "-o",
                                   directory.appendingPathComponent("x.png").path])
        #expect(refused.status == 64 && refused.stderr.contains("--decode-threads must be from 1 to 64"), "\(refused.stderr)")
        let tooMany = try CLI.run(["thumbnail", source, "--size", "30", "--decode-threads", "65", "-o",
                                   directory.appendingPathComponent("x.png").path])
        #expect(tooMany.status == 64, "\(tooMany.stderr)")
    }

    @Test func getFetchesHEICAndJXLOriginals() throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try OriginServer()
        defer { server.shutdown() }
        for (path, file) in [("/photo.heic", "heic/heif.heif"), ("/photo.jxl", "jxl/8-bpp.jxl")] {
            let body = try Data(contentsOf: Fixtures.directory.appendingPathComponent(file))
            server.route(path) { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=60")], body: body) }
        }
        let cache = ["--cache-dir", directory.appendingPathComponent("cache").path]
        for (path, format) in [("/photo.heic", "jpeg"), ("/photo.jxl", "jxl")] {
            let output = directory.appendingPathComponent("got.\(format)")
            let run = try CLI.run(["get", server.url(path), "--size", "64", "--format", format, "-o", output.path] + cache)
            #expect(run.status == 0, "\(path): \(run.stderr)")
            let info = try ImageDecoder.probe(Data(contentsOf: output))
            #expect(info.format.rawValue == format && max(info.width, info.height) == 64, "\(path)")
        }
    }
}
