import Foundation
import Testing
@testable import ImageDecode

/// Tests/FormatCorpus/MANIFEST.tsv (the shared corpus's columns; paths relative to the repository): every row's file
/// has its size, decodes to its width and height, or is refused with the named `ImageDecodeError` case; an animated
/// row's frames are all read (`AnimationDecoder`).
struct FormatCorpusTests {
    static let repository = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Row: CustomStringConvertible, Sendable {
        let file: String, bytes: Int, width: Int, height: Int, outcome: String, notes: String
        var description: String { file }
    }

    static let rows: [Row] = {
        let url = repository.appendingPathComponent("Tests/FormatCorpus/MANIFEST.tsv")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Row(file: fields[0], bytes: Int(fields[1]) ?? -1, width: Int(fields[2]) ?? -1, height: Int(fields[3]) ?? -1,
                       outcome: fields[7], notes: fields.count > 8 ? fields[8] : "")
        }
    }()

    static let caseNames: Set<String> = ["unrecognizedFormat", "unsupported", "corrupt", "truncated", "tooLarge",
                                         "animationTooLarge", "overMemoryBudget", "outOfMemory"]

    @Test func theManifestIsRead() { #expect(Self.rows.count >= 28) }

    @Test(arguments: rows) func rowHasItsOutcome(_ row: Row) throws {
        let data = try Data(contentsOf: Self.repository.appendingPathComponent(row.file))
        #expect(data.count == row.bytes, "bytes")
        if row.outcome == "decodes" {
            let info = try ImageDecoder.probe(data)
            #expect(info.width == row.width && info.height == row.height)
            let image = try ImageDecoder.decode(data)
            // An SVG over the pixel limit is drawn scaled to fit it (imgproxy's rule), so only its declared size is pinned.
            #expect(info.format == .svg || image.width == row.width && image.height == row.height)
            if row.notes.hasPrefix("animated") {
                let count = try AnimationDecoder.withFrames(for: .data(data)) { (source, _) throws(ImageDecodeError) in
                    var count = 0
                    while try source.nextFrame() != nil { count += 1 }
                    return count
                }
                #expect(info.isAnimated && count == info.frameCount, "\(count) frames read")
            }
        } else {
            // `refused: <ImageDecodeError case>`, or `refused: <the library's reason>` where the case is `corrupt`.
            let expected = row.outcome.replacingOccurrences(of: "refused: ", with: "")
            do {
                _ = try ImageDecoder.decode(data)
                Issue.record("\(row.file) decoded; expected \(row.outcome)")
            } catch {
                #expect(error.caseName == expected || !Self.caseNames.contains(expected), "\(error)")
            }
        }
    }
}
