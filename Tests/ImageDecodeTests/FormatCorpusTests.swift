import Foundation
import Testing
@testable import ImageDecode

/// Tests/FormatCorpus/MANIFEST.tsv: every committed file of the formats issue 32 added, with its expected outcome
/// (`decodes`, or `refused: <reason>`), checked through the thumbnail path (`Thumbnailer`, 256 pixels). Paths are
/// relative to the repository; rows whose file is absent are skipped.
struct FormatCorpusTests {
    static let repository = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Row {
        var file: String
        var width: Int?
        var height: Int?
        var format: String
        var refused: Bool
    }

    static func rows() throws -> [Row] {
        let text = try String(contentsOf: repository.appendingPathComponent("Tests/FormatCorpus/MANIFEST.tsv"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Row(file: fields[0], width: Int(fields[2]), height: Int(fields[3]),
                       format: fields[4].split(separator: ";").first.map(String.init) ?? "", refused: fields[7].hasPrefix("refused"))
        }
    }

    @Test func everyRowsOutcomeIsMet() throws {
        var checked = 0
        for row in try Self.rows() {
            let url = Self.repository.appendingPathComponent(row.file)
            guard let data = try? Data(contentsOf: url) else { continue }
            checked += 1
            do {
                let made = try Thumbnailer().makeThumbnail(from: data, ThumbnailRequest(size: 256, format: .png))
                #expect(!row.refused, "\(row.file) must be refused but decoded")
                // The declared size (an SVG's is fitted to the pixel limit for the drawing, `sourceInfo`).
                let header = try ImageDecoder.probe(data)
                if let width = row.width, let height = row.height {
                    #expect((header.width, header.height) == (width, height), "\(row.file)")
                }
                #expect(made.sourceInfo.format.rawValue == row.format.lowercased(), "\(row.file)")
            } catch {
                #expect(row.refused, "\(row.file) must decode but failed: \(error)")
            }
        }
        #expect(checked > 0)
    }
}
