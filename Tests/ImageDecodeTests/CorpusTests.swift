import Foundation
import Testing
@testable import ImageDecode

/// Runs over the shared corpus when it is present; skipped (with the reason) otherwise.
@Suite(.enabled(if: Fixtures.corpus != nil, Comment(rawValue: Fixtures.corpusMissing)))
struct CorpusTests {
    struct Row {
        var file: String
        var width: Int?
        var height: Int?
        var mustDecode: Bool
    }

    static func manifest() throws -> [Row] {
        let text = try String(contentsOf: Fixtures.corpus!.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Row(file: fields[0], width: Int(fields[2]), height: Int(fields[3]), mustDecode: fields[7] == "decodes")
        }
    }

    /// Corpus folders of formats this build does not read yet (issue 12 adds their decoders). Their rows are
    /// counted, not skipped silently: the count below fails when the manifest changes under us.
    static let pendingFormats: Set<String> = ["webp", "gif", "avif"]

    static func isPending(_ row: Row) -> Bool {
        pendingFormats.contains(String(row.file.prefix { $0 != "/" }))
    }

    @Test func everyManifestOutcomeIsMet() throws {
        let all = try Self.manifest()
        let rows = all.filter { !Self.isPending($0) }
        #expect(rows.count == 248)
        #expect(all.count - rows.count == 100, "WebP, GIF and AVIF rows awaiting their decoders")
        let thumbnailer = Thumbnailer()
        for row in rows {
            let data = try Data(contentsOf: Fixtures.corpus!.appendingPathComponent(row.file))
            if row.mustDecode {
                do {
                    // The thumbnail path decodes every scan (DCT-scaled) and checks the trailer.
                    let made = try thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 256))
                    #expect(made.sourceInfo.width == row.width && made.sourceInfo.height == row.height, "\(row.file)")
                    #expect(max(made.width, made.height) == min(256, max(made.sourceInfo.orientedWidth, made.sourceInfo.orientedHeight)), "\(row.file)")
                } catch {
                    Issue.record("\(row.file) must decode but failed: \(error)")
                }
            } else {
                #expect(throws: ImageDecodeError.self, "\(row.file) must be refused") {
                    try thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 256))
                }
            }
        }
    }

    @Test func fullResolutionDecodeOfEveryPng() throws {
        for row in try Self.manifest() where row.file.hasSuffix(".png") && row.mustDecode {
            let image = try ImageDecoder.decode(Data(contentsOf: Fixtures.corpus!.appendingPathComponent(row.file)))
            #expect(image.width == row.width && image.height == row.height, "\(row.file)")
        }
    }

    @Test func portraitOrientationsComeOutUpright() throws {
        let thumbnailer = Thumbnailer()
        func thumbnail(_ n: Int) throws -> PixelBuffer {
            let data = try Data(contentsOf: Fixtures.corpus!.appendingPathComponent("exif-orientation/Portrait_\(n).jpg"))
            return try ImageDecoder.decode(thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 128, format: .png)).data)
        }
        let upright = try thumbnail(1)
        for n in [0, 2, 3, 4, 5, 6, 7, 8] {
            let image = try thumbnail(n)
            #expect((image.width, image.height) == (upright.width, upright.height), "Portrait_\(n)")
            #expect(Fixtures.meanAbsoluteDifference(image, upright) < 4, "Portrait_\(n)")
        }
    }
}
