import Foundation
import Testing
@testable import ImageDecode

/// Tests/FormatCorpus/MANIFEST.tsv: every row's file, read through `ImageDecoder`, has the outcome the row expects
/// (`decodes`, with the row's width and height when given, or `refused: <reason>`). One test for every format.
struct FormatCorpusTests {
    static let root = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func everyRowHasItsExpectedOutcome() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Tests/FormatCorpus/MANIFEST.tsv"), encoding: .utf8)
        let rows = manifest.split(separator: "\n").dropFirst().map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        #expect(rows.count > 0)
        for row in rows {
            let (path, width, height, outcome) = (String(row[0]), Int(row[2]), Int(row[3]), String(row[7]))
            let data = try Data(contentsOf: Self.root.appendingPathComponent(path))
            #expect(data.count == Int(row[1]), "\(path): bytes")
            do {
                let image = try ImageDecoder.decode(data)
                #expect(outcome == "decodes", "\(path) decoded, expected \(outcome)")
                if let width, let height { #expect(image.width == width && image.height == height, "\(path): size") }
            } catch {
                #expect(outcome.hasPrefix("refused"), "\(path): \(error)")
            }
        }
    }
}
