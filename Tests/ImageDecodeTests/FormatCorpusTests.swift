import Foundation
import Testing
@testable import ImageDecode

/// Tests/FormatCorpus/MANIFEST.tsv: each row's file decodes, or is refused, as its `expected_outcome` says, and an
/// animated row's frames are all read (`AnimationDecoder`).
@Suite struct FormatCorpusTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func rows() throws -> [[String: String]] {
        let text = try String(contentsOf: root.appendingPathComponent("Tests/FormatCorpus/MANIFEST.tsv"), encoding: .utf8)
        let lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        guard let header = lines.first else { return [] }
        return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }

    @Test func everyRowHasItsExpectedOutcome() throws {
        let rows = try Self.rows()
        #expect(!rows.isEmpty)
        for row in rows {
            let file = try #require(row["file"]), expected = try #require(row["expected_outcome"])
            let data = try Data(contentsOf: Self.root.appendingPathComponent(file))
            #expect(data.count == Int(row["bytes"] ?? ""), "\(file): bytes")
            if expected == "decodes" {
                let image = try ImageDecoder.decode(data)
                #expect(image.width == Int(row["width"] ?? "") && image.height == Int(row["height"] ?? ""), "\(file)")
                if row["notes"]?.hasPrefix("animated") == true {
                    let info = try ImageDecoder.probe(data)
                    let count = try AnimationDecoder.withFrames(for: .data(data)) { (source, _) throws(ImageDecodeError) in
                        var count = 0
                        while try source.nextFrame() != nil { count += 1 }
                        return count
                    }
                    #expect(info.isAnimated && count == info.frameCount, "\(file): \(count) frames read")
                }
            } else {
                #expect(expected.hasPrefix("refused"), "\(file): \(expected)")
                #expect(throws: ImageDecodeError.self, "\(file)") { try ImageDecoder.decode(data) }
            }
        }
    }
}
