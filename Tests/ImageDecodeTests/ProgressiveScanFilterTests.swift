import Foundation
import SeededRandom
import Testing
@testable import ImageDecode

/// At 1/8 scale a progressive JPEG's components that come out one pixel per block need only their DC
/// coefficients, so their AC scans are left out before libjpeg sees them (CJpegPngGlue/jpeg_scan_filter.c).
/// The pixels must be exactly those of a full decode, from memory and from a file, and damage must still be
/// reported wherever it could change them.
@Suite struct ProgressiveScanFilterTests {
    /// 4:4:4 with a DC refinement scan; 4:4:4 with one DC scan per component; 4:2:0 (chroma AC is used at 1/8,
    /// so only luma's AC scans go); the same with a restart marker after every MCU.
    static let names = ["progressive/tower.jpg", "progressive/progressive3.jpg",
                        "progressive/testorig-420.jpg", "progressive/testorig-420-restart.jpg"]

    struct Decoded: Equatable {
        var width = 0, height = 0
        var pixels: [UInt8] = []
        var dropped = 0
    }

    /// `shrink` 16 or more decodes at 1/8.
    static func decode(_ bytes: Data, shrink: Double = 16, dropping: Bool = true) throws -> Decoded {
        try bytes.withUnsafeBytes { raw in try decode(JPEGDecoder(raw), shrink: shrink, dropping: dropping) }
    }

    static func decode(file path: String, shrink: Double = 16) throws -> Decoded {
        guard let file = fopen(path, "rb") else { throw ImageDecodeError.unreadable(path: path, reason: "fopen") }
        defer { fclose(file) }
        return try decode(JPEGDecoder(file: file), shrink: shrink, dropping: true)
    }

    static func decode(_ decoder: JPEGDecoder, shrink: Double, dropping: Bool) throws -> Decoded {
        decoder.dropsUnusedScans = dropping
        let (width, height, _) = try decoder.start(shrink: shrink, convertToSRGB: false)
        var result = Decoded(width: width, height: height)
        try decoder.readRows { result.pixels.append(contentsOf: $0) }
        result.dropped = decoder.droppedBytes
        return result
    }

    /// Offsets of the SOS markers, found by walking the marker segments (0xFF 0xDA can occur inside APPn data).
    static func scanOffsets(_ bytes: Data) -> [Int] {
        let b = Array(bytes)
        var offsets: [Int] = []
        var i = 2
        while i + 3 < b.count, b[i] == 0xFF, b[i + 1] != 0xD9 {
            if b[i + 1] == 0xDA {
                offsets.append(i)
                i = scanEnd(bytes, at: i)
            } else {
                i += 2 + (Int(b[i + 2]) << 8 | Int(b[i + 3]))
            }
        }
        return offsets
    }

    /// Where the entropy-coded data of the scan whose SOS is at `offset` ends: at the first marker but RSTn.
    static func scanEnd(_ bytes: Data, at offset: Int) -> Int {
        let b = Array(bytes)
        var i = offset + 2 + (Int(b[offset + 2]) << 8 | Int(b[offset + 3]))
        while i + 1 < b.count, !(b[i] == 0xFF && b[i + 1] != 0 && !(0xD0...0xD7).contains(b[i + 1])) { i += 1 }
        return i
    }

    /// Component id and spectral start of the scan whose SOS is at `offset`.
    static func scanShape(_ bytes: Data, at offset: Int) -> (components: [UInt8], spectralStart: UInt8) {
        let b = Array(bytes)
        let count = Int(b[offset + 4])
        return ((0..<count).map { b[offset + 5 + 2 * $0] }, b[offset + 5 + 2 * count])
    }

    @Test(arguments: names)
    func droppingTheUnusedScansLeavesThePixelsUnchanged(name: String) throws {
        let bytes = try Fixtures.data(name)
        let full = try Self.decode(bytes, dropping: false)
        let filtered = try Self.decode(bytes)
        #expect(full.dropped == 0)
        #expect(filtered.width == full.width && filtered.height == full.height)
        let samePixels = filtered.pixels == full.pixels
        #expect(samePixels, "\(name): pixels differ")
        #expect(filtered.pixels.count == full.width * full.height * 3)
        // The luma AC scans alone are over a third of each file.
        #expect(filtered.dropped > bytes.count / 3, "\(name): dropped \(filtered.dropped) of \(bytes.count)")
        #expect(filtered.dropped < bytes.count)
    }

    @Test(arguments: names)
    func aFileGivesWhatMemoryGives(name: String) throws {
        let path = Fixtures.directory.appendingPathComponent(name).path
        #expect(try Self.decode(file: path) == Self.decode(try Fixtures.data(name)))
    }

    /// 4:2:0 chroma at 1/8 is reconstructed from 2x2 coefficients, so its AC scans are kept; at 1/4 and for a
    /// baseline file nothing is dropped.
    @Test func onlyScansTheOutputCannotUseAreDropped() throws {
        let bytes = try Fixtures.data("progressive/testorig-420.jpg")
        let offsets = Self.scanOffsets(bytes)
        let filtered = try Self.decode(bytes)
        let lumaAC = offsets.filter {
            let shape = Self.scanShape(bytes, at: $0)
            return shape.components == [1] && shape.spectralStart > 0
        }.reduce(0) { $0 + Self.scanEnd(bytes, at: $1) - $1 }
        #expect(filtered.dropped == lumaAC, "exactly the luma AC scans, SOS segments included")
        #expect(try Self.decode(bytes, shrink: 8).dropped == 0)
        #expect(try Self.decode(try Fixtures.data("testorig.jpg")).dropped == 0)
    }

    /// Any marker may be preceded by 0xFF fill bytes, which must not confuse the filter.
    @Test func fillBytesBeforeMarkersAreTolerated() throws {
        let bytes = try Fixtures.data("progressive/tower.jpg")
        var padded = Data()
        var last = 0
        for offset in Self.scanOffsets(bytes) {
            padded.append(bytes[last..<offset])
            padded.append(contentsOf: [0xFF, 0xFF, 0xFF])
            last = offset
        }
        padded.append(bytes[last...])
        let result = try Self.decode(padded)
        let samePixels = try result.pixels == Self.decode(bytes, dropping: false).pixels
        #expect(samePixels)
        #expect(result.dropped > bytes.count / 3)
    }

    /// A file that ends inside a dropped scan is as truncated as before: the filter has nothing to hand on.
    @Test(arguments: names)
    func aFileCutInADroppedScanIsTruncated(name: String) throws {
        let bytes = try Fixtures.data(name)
        let offsets = Self.scanOffsets(bytes)
        let dropped = try #require(offsets.first { Self.scanShape(bytes, at: $0).components == [1] && Self.scanShape(bytes, at: $0).spectralStart > 0 })
        for cut in [dropped + 40, bytes.count / 2, bytes.count - 3] {
            let prefix = bytes.prefix(cut)
            #expect(throws: ImageDecodeError.truncated, "\(name) cut at \(cut)") { try Self.decode(prefix) }
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("cut-\(UUID().uuidString).jpg").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            try prefix.write(to: URL(fileURLWithPath: path))
            #expect(throws: ImageDecodeError.truncated, "\(name) cut at \(cut), from a file") { try Self.decode(file: path) }
        }
    }

    /// Damage inside a kept scan is refused as before; inside a dropped scan it cannot change the pixels,
    /// and is not seen (a full-size request for the same file would decode it and refuse it).
    @Test func damageIsSeenWhereItCouldChangeThePixels() throws {
        let bytes = try Fixtures.data("progressive/tower.jpg")
        let offsets = Self.scanOffsets(bytes)
        let clean = try Self.decode(bytes, dropping: false)
        // Scan 2 is luma AC (dropped); the first scan is the DC of all three components (kept).
        #expect(Self.scanShape(bytes, at: offsets[1]) == ([1], 1))
        var inDropped = bytes
        for i in 0..<64 { inDropped[offsets[1] + 40 + i] = 0xFE }
        let samePixels = try Self.decode(inDropped).pixels == clean.pixels
        #expect(samePixels)
        #expect(throws: ImageDecodeError.self) { try Self.decode(inDropped, dropping: false) }
        var inKept = bytes
        for i in 0..<64 { inKept[offsets[0] + 40 + i] = 0xFE }
        #expect(throws: ImageDecodeError.self) { try Self.decode(inKept) }
    }

    /// An AC scan is dropped only after its component's DC has come. progressive3.jpg sends Y, Cb and Cr DC in
    /// scans 1-3; with scan 2 made an AC scan (Ss 1, Se 63), Cb has no DC at all: libjpeg refuses the file, and
    /// dropping that scan would have given a picture without blue-difference, silently.
    @Test func anACScanBeforeItsDCIsLeftForLibjpegToRefuse() throws {
        var bytes = try Fixtures.data("progressive/progressive3.jpg")
        let second = Self.scanOffsets(bytes)[1]
        #expect(Self.scanShape(bytes, at: second) == ([2], 0))
        bytes[bytes.startIndex + second + 7] = 1
        bytes[bytes.startIndex + second + 8] = 63
        #expect(throws: ImageDecodeError.self) { try Self.decode(bytes, dropping: false) }
        #expect(throws: ImageDecodeError.self) { try Self.decode(bytes) }
    }

    /// Random damage anywhere past the frame header (markers and scan headers included): from memory and
    /// from a file the outcome is the same, and when the full decode of a file with all its scans also
    /// succeeds the pixels are equal.
    @Test(arguments: ["progressive/tower.jpg", "progressive/testorig-420-restart.jpg"])
    func damageGivesTheSameOutcomeEverywhere(name: String) throws {
        let whole = try Fixtures.data(name)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("damaged-\(UUID().uuidString).jpg").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var random = SplitMix64(seed: 20261125)
        let firstScan = Self.scanOffsets(whole)[0]
        var refused = 0, dropped = 0
        for trial in 0..<150 {
            var damaged = whole
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                damaged[Int.random(in: firstScan + 16..<whole.count - 2, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            try damaged.write(to: URL(fileURLWithPath: path))
            let fromMemory = Result { try Self.decode(damaged) }
            let fromFile = Result { try Self.decode(file: path) }
            switch (fromMemory, fromFile) {
            case (.success(let a), .success(let b)):
                #expect(a == b, "\(name) trial \(trial)")
                if a.dropped > 0 { dropped += 1 }
                // A file whose EOI came early (a damaged SOS) is complete to libjpeg, which then estimates the
                // coefficients that never came (block smoothing, off while dropping): compare whole files only.
                if Self.scanOffsets(damaged).count == Self.scanOffsets(whole).count,
                   let full = try? Self.decode(damaged, dropping: false) {
                    let samePixels = a.pixels == full.pixels
                    #expect(samePixels, "\(name) trial \(trial): pixels differ from the full decode")
                }
            case (.failure(let a), .failure(let b)):
                #expect("\(a)" == "\(b)", "\(name) trial \(trial)")
                refused += 1
            default:
                Issue.record("\(name) trial \(trial): \(fromMemory) vs \(fromFile)")
            }
        }
        #expect(refused > 0 && dropped > 0, "refused \(refused), decoded with scans dropped \(dropped)")
    }
}

/// Every progressive JPEG of the shared corpus that must decode gives the same pixels at 1/8 with its unused
/// scans dropped (the photo-sized ones are where it matters: 70-80 % of their bytes are luma AC).
@Suite(.enabled(if: Fixtures.corpus != nil, Comment(rawValue: Fixtures.corpusMissing)))
struct ProgressiveCorpusTests {
    /// The corpus's progressive JPEGs that must decode (MANIFEST.tsv), at least six.
    static func files() throws -> [String] {
        let rows = try CorpusTests.manifest()
        let text = try String(contentsOf: Fixtures.corpus!.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        let progressive = Set(text.split(separator: "\n").filter { $0.contains("SOF2 progressive") }
            .map { String($0.split(separator: "\t")[0]) })
        let files = rows.filter { $0.mustDecode && progressive.contains($0.file) }.map(\.file)
        #expect(files.count >= 6)
        return files
    }

    @Test func everyProgressiveCorpusJpegGivesTheSamePixels() async throws {
        let files = try Self.files()
        let failures = try await Fixtures.offCooperativePool {
            try files.compactMap { file in
                let bytes = try Data(contentsOf: Fixtures.corpus!.appendingPathComponent(file))
                let full = try ProgressiveScanFilterTests.decode(bytes, dropping: false)
                let filtered = try ProgressiveScanFilterTests.decode(bytes)
                if filtered.pixels != full.pixels { return "\(file): pixels differ" }
                if filtered.dropped == 0 { return "\(file): nothing dropped" }
                return nil
            }
        }
        #expect(failures.isEmpty, "\(failures)")
    }
}
