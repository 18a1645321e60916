import Foundation
import Testing
@testable import ImageDecode

/// A HEIC file is read through libheif's reader (`HEICDecoder(file:)`): its boxes, then only the items decoded.
/// Every committed HEIC fixture, and every cut of them, must give what its bytes in memory give: the same rows, or
/// the same error.
@Suite struct HEICFileInputTests {
    /// Every HEIC/HEIF fixture, the hostile ones included, relative to Fixtures/.
    static func fixtureNames() throws -> [String] {
        let root = Fixtures.directory.appendingPathComponent("heic").path
        let files = try FileManager.default.subpathsOfDirectory(atPath: root).sorted()
            .filter { $0.hasSuffix(".heic") || $0.hasSuffix(".heif") }
        return files.map { "heic/\($0)" }
    }

    typealias Outcome = Result<PixelBuffer, ImageDecodeError>

    static func outcome(_ input: EncodedImage, shrink: Double) -> Outcome {
        Result { () throws(ImageDecodeError) in try Fixtures.decodeRows(input, shrink: shrink) }
    }

    /// The same pixels, or errors of the same case (a file read in pieces must not change the verdict).
    static func agree(_ fromFile: Outcome, _ fromBytes: Outcome) -> Bool {
        switch (fromFile, fromBytes) {
        case (.success(let a), .success(let b)): a == b
        case (.failure(let a), .failure(let b)): a.caseName == b.caseName
        default: false
        }
    }

    @Test func everyHEICFixtureDecodesFromAFileAsFromItsBytes() throws {
        let names = try Self.fixtureNames()
        #expect(names.count >= 13)
        var decoded = 0
        for name in names {
            let data = try Fixtures.data(name)
            let path = Fixtures.directory.appendingPathComponent(name).path
            // Shrink 4: thumbnail.heic's embedded thumbnail is decoded instead (another item of the file).
            for shrink in [1.0, 4.0] {
                let fromFile = Self.outcome(.file(path), shrink: shrink)
                #expect(Self.agree(fromFile, Self.outcome(.data(data), shrink: shrink)), "\(name) at shrink \(shrink)")
                if case .success = fromFile, shrink == 1 { decoded += 1 }
            }
            #expect((try? ImageDecoder.probe(.file(path))) == (try? ImageDecoder.probe(.data(data))), "\(name) probe")
        }
        #expect(decoded == 8, "the eight fixtures outside hostile/ decode")
    }

    /// Files cut in the boxes, in the item data and one byte short: from a file, the same error case as from the
    /// cut bytes (libheif's reader is given the in-memory reader's end-of-data rules).
    @Test func aCutHEICFileFailsAsItsBytesDo() throws {
        let names = try Self.fixtureNames().filter { !$0.contains("hostile/") }
        for name in names {
            let whole = try Fixtures.data(name)
            for keep in [12, 40, 200, whole.count / 3, whole.count * 2 / 3, whole.count - 1] {
                let cut = Data(whole.prefix(keep))
                let path = try Fixtures.temporaryFile(cut, suffix: "heic")
                defer { try? FileManager.default.removeItem(atPath: path) }
                for shrink in [1.0, 4.0] {
                    let fromFile = Self.outcome(.file(path), shrink: shrink)
                    let fromBytes = Self.outcome(.data(cut), shrink: shrink)
                    #expect(Self.agree(fromFile, fromBytes), "\(name) cut to \(keep) at shrink \(shrink): \(fromFile) / \(fromBytes)")
                }
            }
        }
    }
}
