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

    @Test func everyManifestOutcomeIsMet() async throws {
        let rows = try Self.manifest()
        // 248 JPEG/PNG rows and 100 WebP/GIF/AVIF rows (issue 12): fails when the manifest changes under us.
        #expect(rows.count == 348)
        #expect(rows.filter { ["webp/", "gif/", "avif/"].contains(where: $0.file.hasPrefix) }.count == 100)
        let failures = try await Fixtures.offCooperativePool {
            let thumbnailer = Thumbnailer()
            var failures: [String] = []
            for row in rows {
                let data = try Data(contentsOf: Fixtures.corpus!.appendingPathComponent(row.file))
                if row.mustDecode {
                    do {
                        // The thumbnail path decodes (DCT-scaled) every scan the output uses and checks the trailer.
                        let made = try thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 256))
                        let longest = min(256, max(made.sourceInfo.orientedWidth, made.sourceInfo.orientedHeight))
                        if made.sourceInfo.width != row.width || made.sourceInfo.height != row.height {
                            failures.append("\(row.file): \(made.sourceInfo.width)x\(made.sourceInfo.height), manifest \(row.width ?? -1)x\(row.height ?? -1)")
                        }
                        if max(made.width, made.height) != longest {
                            failures.append("\(row.file): thumbnail \(made.width)x\(made.height), longest side should be \(longest)")
                        }
                    } catch {
                        failures.append("\(row.file) must decode but failed: \(error)")
                    }
                } else {
                    do {
                        _ = try thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 256))
                        failures.append("\(row.file) must be refused but decoded")
                    } catch is ImageDecodeError {
                    } catch {
                        failures.append("\(row.file) must be refused with an ImageDecodeError, got \(error)")
                    }
                }
            }
            return failures
        }
        for failure in failures { Issue.record(Comment(rawValue: failure)) }
    }

    @Test func fullResolutionDecodeOfEveryPng() async throws {
        let rows = try Self.manifest().filter { $0.file.hasSuffix(".png") && $0.mustDecode }
        let failures = try await Fixtures.offCooperativePool {
            try rows.compactMap { row in
                let image = try ImageDecoder.decode(Data(contentsOf: Fixtures.corpus!.appendingPathComponent(row.file)))
                return image.width == row.width && image.height == row.height
                    ? nil : "\(row.file): \(image.width)x\(image.height), manifest \(row.width ?? -1)x\(row.height ?? -1)"
            }
        }
        for failure in failures { Issue.record(Comment(rawValue: failure)) }
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

    /// gifsicle --interlace of the same picture: the deinterlaced pixels must be identical.
    @Test func interlacedGifDecodesToTheSamePixels() throws {
        let base = Fixtures.corpus!.appendingPathComponent("gif/photos/james-yarema-P2X7NDx_GP0-unsplash_1200x800")
        let plain = try ImageDecoder.decode(Data(contentsOf: URL(fileURLWithPath: base.path + ".gif")))
        let interlaced = try ImageDecoder.decode(Data(contentsOf: URL(fileURLWithPath: base.path + "_interlaced.gif")))
        #expect(plain == interlaced)
    }

    /// avifenc turned the JPEG's Exif orientation 6 into irot and kept the Exif item too: rotated once only,
    /// the AVIF thumbnail matches the JPEG's.
    @Test func avifWithIrotAndExifIsRotatedOnce() throws {
        let thumbnailer = Thumbnailer()
        func thumbnail(_ file: String) throws -> PixelBuffer {
            let data = try Data(contentsOf: Fixtures.corpus!.appendingPathComponent(file))
            return try ImageDecoder.decode(thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 128, format: .png)).data)
        }
        let avif = try thumbnail("avif/photos/canon_hdr_NO.avif"), jpeg = try thumbnail("jpeg/canon_hdr_NO.jpg")
        #expect(avif.width == 96 && avif.height == 128)
        #expect(Fixtures.meanAbsoluteDifference(avif, jpeg) < 8)
        let webp = try thumbnail("webp/photos/canon_hdr_NO.webp")
        #expect(Fixtures.meanAbsoluteDifference(webp, jpeg) < 8)
    }

    @Test func webpOrientationsComeOutUpright() throws {
        let thumbnailer = Thumbnailer()
        func thumbnail(_ name: String) throws -> PixelBuffer {
            let data = try Data(contentsOf: Fixtures.corpus!.appendingPathComponent("webp/pillow/\(name).webp"))
            return try ImageDecoder.decode(thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 64, format: .png)).data)
        }
        let upright = try thumbnail("hopper")
        for n in 2...8 {
            #expect(Fixtures.meanAbsoluteDifference(try thumbnail("hopper_orientation_\(n)"), upright) < 6, "orientation \(n)")
        }
    }
}
