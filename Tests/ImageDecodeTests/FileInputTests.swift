import Foundation
import SeededRandom
import Testing
@testable import ImageDecode

/// `EncodedImage.file` is read in chunks as it decodes, through the same glue as memory: every outcome, thumbnail bytes or
/// error, must be the one the same bytes give from memory.
@Suite struct FileInputTests {
    /// The thumbnail bytes, or the error, that `input` gives.
    static func outcome(_ input: EncodedImage, size: Int = 64) -> Result<Data, ImageDecodeError> {
        Result { () throws(ImageDecodeError) in try Thumbnailer().makeThumbnail(from: input, ThumbnailRequest(size: size)).data }
    }

    /// Thumbnails byte-identical, or the same error with the same message: both sources hand the libraries
    /// the same chunks (libjpeg's verdict on damaged data depends on how much is buffered).
    static func agree(_ a: Result<Data, ImageDecodeError>, _ b: Result<Data, ImageDecodeError>) -> Bool { a == b }

    static func fixturePaths() throws -> [String] {
        let root = Fixtures.directory.path
        let pngs = try Fixtures.pngSuiteNames().map { "\(root)/pngsuite/\($0)" }
        let orientation = try FileManager.default.contentsOfDirectory(atPath: "\(root)/orientation").sorted()
            .map { "\(root)/orientation/\($0)" }
        let others = try FileManager.default.contentsOfDirectory(atPath: root).sorted()
            .filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }.map { "\(root)/\($0)" }
        return pngs + orientation + others
    }

    @Test func everyFixtureGivesTheSameOutcomeFromAFile() throws {
        let paths = try Self.fixturePaths()
        #expect(paths.count > 190)
        var failures = 0
        for path in paths {
            let fromFile = Self.outcome(.file(path))
            let fromMemory = Self.outcome(.data(try Data(contentsOf: URL(fileURLWithPath: path))))
            #expect(Self.agree(fromFile, fromMemory), "\(path): \(fromFile) vs \(fromMemory)")
            if case .failure = fromFile { failures += 1 }
            #expect((try? ImageDecoder.probe(.file(path))) == (try? ImageDecoder.probe(.data(Data(contentsOf: URL(fileURLWithPath: path))))))
        }
        #expect(failures == 14, "exactly PngSuite's corrupt x* files fail")
    }

    @Test(arguments: ["testorig.jpg", "testorig.png", "pngsuite/basi6a08.png"])
    func truncatedFilesFailAlikeFromAFile(name: String) throws {
        let whole = try Fixtures.data(name)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cut-\(UUID().uuidString)-\(name.split(separator: "/").last!)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        for length in [whole.count / 2, whole.count - 20] {
            try whole.prefix(length).write(to: URL(fileURLWithPath: path))
            let fromFile = Self.outcome(.file(path))
            #expect(Self.agree(fromFile, Self.outcome(.data(whole.prefix(length)))), "\(name) cut to \(length)")
            guard case .failure = fromFile else { Issue.record("\(name) cut to \(length) decoded"); continue }
        }
    }

    /// Damaged JPEGs (a few bytes overwritten past the headers): whatever libjpeg makes of the damage, it
    /// makes the same of it from memory and from a file. Before both sources fed the same chunks, damage
    /// that the in-memory source's one big buffer let through was refused from a file.
    @Test(arguments: ["testorig.jpg", "rocket.jpg", "orientation/Landscape_6.jpg"])
    func damagedJpegsGiveTheSameOutcomeFromAFile(name: String) throws {
        let whole = try Fixtures.data(name)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("damaged-\(UUID().uuidString).jpg").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var random = SplitMix64(seed: 20261123)
        var outcomes: [String: Int] = [:]
        for trial in 0..<150 {
            var damaged = whole
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                damaged[Int.random(in: 1000..<whole.count - 2, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            try damaged.write(to: URL(fileURLWithPath: path))
            let fromFile = Self.outcome(.file(path), size: 96)
            let fromMemory = Self.outcome(.data(damaged), size: 96)
            #expect(fromFile == fromMemory, "\(name) trial \(trial): \(fromFile) vs \(fromMemory)")
            outcomes[(try? fromFile.get()) == nil ? "refused" : "ok", default: 0] += 1
        }
        #expect(outcomes["refused", default: 0] > 0, "the damage must reach the decoder: \(outcomes)")
    }

    @Test func unreadableAndEmptyFilesAreRefusedClearly() throws {
        let missing = "/nonexistent/thumbcache/x.jpg"
        #expect(Self.outcome(.file(missing)) == .failure(.unreadable(path: missing, reason: "No such file or directory")))
        let directory = FileManager.default.temporaryDirectory.path
        guard case .failure(.unreadable(directory, _)) = Self.outcome(.file(directory)) else {
            Issue.record("a directory: \(Self.outcome(.file(directory)))"); return
        }
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(UUID().uuidString).png").path
        FileManager.default.createFile(atPath: empty, contents: Data())
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect(Self.outcome(.file(empty)) == .failure(.unrecognizedFormat))
    }
}

/// Over the shared corpus (camera JPEGs, progressive, CMYK, 6000x4000 photos, PngSuite): file and memory agree.
@Suite(.enabled(if: Fixtures.corpus != nil, Comment(rawValue: Fixtures.corpusMissing)))
struct CorpusFileInputTests {
    @Test func everyCorpusFileGivesTheSameOutcomeFromAFile() async throws {
        let corpus = Fixtures.corpus!
        let names = try FileManager.default.subpathsOfDirectory(atPath: corpus.path).sorted()
            .filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".jpeg") || $0.hasSuffix(".png") }
        #expect(names.count > 200)
        let failures = try await Fixtures.offCooperativePool {
            try names.compactMap { name in
                let path = corpus.appendingPathComponent(name).path
                let fromFile = FileInputTests.outcome(.file(path), size: 128)
                let fromMemory = FileInputTests.outcome(.data(try Data(contentsOf: URL(fileURLWithPath: path))), size: 128)
                return FileInputTests.agree(fromFile, fromMemory) ? nil : "\(name): \(fromFile) vs \(fromMemory)"
            }
        }
        for failure in failures { Issue.record(Comment(rawValue: failure)) }
    }
}
