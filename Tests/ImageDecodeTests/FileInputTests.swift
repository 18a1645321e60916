import Foundation
import Testing
@testable import ImageDecode

/// `EncodedImage.file` reads through libjpeg's and libpng's stdio sources: every outcome, thumbnail bytes or
/// error, must be the one the same bytes give from memory.
@Suite struct FileInputTests {
    /// The thumbnail bytes, or the error, that `input` gives.
    static func outcome(_ input: EncodedImage, size: Int = 64) -> Result<Data, ImageDecodeError> {
        Result { () throws(ImageDecodeError) in try Thumbnailer().makeThumbnail(from: input, ThumbnailRequest(size: size)).data }
    }

    /// Thumbnails byte-identical, errors equal, except that two `.corrupt` may name different damage: on
    /// damaged data libjpeg's first complaint can depend on where its input buffer ends (the fuzzer found one).
    static func agree(_ a: Result<Data, ImageDecodeError>, _ b: Result<Data, ImageDecodeError>) -> Bool {
        switch (a, b) {
        case (.failure(.corrupt), .failure(.corrupt)): true
        default: a == b
        }
    }

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
    @Test func everyCorpusFileGivesTheSameOutcomeFromAFile() throws {
        let corpus = Fixtures.corpus!
        let names = try FileManager.default.subpathsOfDirectory(atPath: corpus.path).sorted()
            .filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".jpeg") || $0.hasSuffix(".png") }
        #expect(names.count > 200)
        for name in names {
            let path = corpus.appendingPathComponent(name).path
            let fromFile = FileInputTests.outcome(.file(path), size: 128)
            let fromMemory = FileInputTests.outcome(.data(try Data(contentsOf: URL(fileURLWithPath: path))), size: 128)
            #expect(FileInputTests.agree(fromFile, fromMemory), "\(name): \(fromFile) vs \(fromMemory)")
        }
    }
}
