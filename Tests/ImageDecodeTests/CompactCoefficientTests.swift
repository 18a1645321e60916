import CJpegPngGlue
import Foundation
import Testing
@testable import ImageDecode

/// A progressive JPEG decoded at 1/2, 1/4 or 1/8 can keep per block only the coefficients its reduced IDCT reads and
/// which of the others are nonzero (CJpegPngGlue/jpeg_block_arrays.c): by default for 1x1 components, in tests for
/// 2x2 and 4x4 ones too. The pixels must be exactly those of a decode that keeps whole blocks, and the decoder's
/// memory estimate must shrink with the buffer and still bound it.
@Suite struct CompactCoefficientTests {
    /// 1/8, 1/4 and 1/2.
    static let shrinks: [Double] = [16, 8, 4]

    static let storages = [TC_COEFFICIENTS_COMPACT, TC_COEFFICIENTS_COMPACT_ALL]

    static func decode(_ bytes: Data, shrink: Double, storage: tc_coefficient_storage, dropping: Bool = true,
                       memoryLimit: Int = .max) throws -> ProgressiveScanFilterTests.Decoded {
        try bytes.withUnsafeBytes { raw in
            let decoder = try JPEGDecoder(raw, memoryLimit: memoryLimit)
            decoder.coefficientStorage = storage
            return try ProgressiveScanFilterTests.decode(decoder, shrink: shrink, dropping: dropping)
        }
    }

    static func estimate(_ bytes: Data, shrink: Double, storage: tc_coefficient_storage) throws -> Int {
        try bytes.withUnsafeBytes { raw in
            let decoder = try JPEGDecoder(raw)
            decoder.coefficientStorage = storage
            return decoder.coefficientBytes(shrink: shrink)
        }
    }

    /// Same pixels at every scale, with the unused scans dropped at 1/8 and without (then the luma AC scans,
    /// refinements included, go through the compact store: only their nonzero bits are kept).
    @Test(arguments: ProgressiveScanFilterTests.names, shrinks)
    func compactStorageLeavesThePixelsUnchanged(name: String, shrink: Double) throws {
        let bytes = try Fixtures.data(name)
        for dropping in [true, false] {
            let whole = try Self.decode(bytes, shrink: shrink, storage: TC_COEFFICIENTS_WHOLE, dropping: dropping)
            for storage in Self.storages {
                let compact = try Self.decode(bytes, shrink: shrink, storage: storage, dropping: dropping)
                #expect(compact.width == whole.width && compact.height == whole.height)
                let samePixels = compact.pixels == whole.pixels
                #expect(samePixels, "\(name) at shrink \(shrink), dropping \(dropping), \(storage): pixels differ")
            }
        }
    }

    /// A progressive file that ends (EOI) before its last scans leaves coefficients libjpeg knows to be
    /// incomplete, so it smooths the blocks (jdcoefct.c decompress_smooth_data: estimates from the 5x5 DC
    /// neighbourhood, written only where a coefficient is still zero): still the same pixels.
    @Test(arguments: ["progressive/testorig-420.jpg", "progressive/tower.jpg"])
    func smoothedBlocksAreUnchanged(name: String) throws {
        let bytes = try Fixtures.data(name)
        let offsets = ProgressiveScanFilterTests.scanOffsets(bytes)
        for kept in 1..<offsets.count {
            var cut = Data(bytes.prefix(offsets[kept]))
            cut.append(contentsOf: [0xFF, 0xD9])
            for shrink in Self.shrinks {
                for dropping in [true, false] {
                    let whole = try Self.decode(cut, shrink: shrink, storage: TC_COEFFICIENTS_WHOLE, dropping: dropping)
                    for storage in Self.storages {
                        let compact = try Self.decode(cut, shrink: shrink, storage: storage, dropping: dropping)
                        let samePixels = compact.pixels == whole.pixels
                        #expect(samePixels, "\(name), \(kept) scans, shrink \(shrink), dropping \(dropping), \(storage): pixels differ")
                    }
                }
            }
        }
    }

    /// The estimate (what the pipeline reserves) is smaller for a compact decode, libjpeg's limit set to it is
    /// enough, and the same limit refuses the whole-block buffer: it counts the buffer actually allocated. By
    /// default only 1x1 components are compact (here the luma at 1/8). In an image this small the window (ten
    /// block rows of whole blocks) is a large part of a component: at 1/2 even the 4x4 luma is kept whole, as
    /// storing it compactly would not save anything.
    @Test func theEstimateShrinksAndStillBoundsTheBuffer() throws {
        let bytes = try Fixtures.data("progressive/testorig-420.jpg")
        for shrink in Self.shrinks {
            let whole = try Self.estimate(bytes, shrink: shrink, storage: TC_COEFFICIENTS_WHOLE)
            for storage in Self.storages {
                let compact = try Self.estimate(bytes, shrink: shrink, storage: storage)
                let smaller = shrink == 16 || (shrink == 8 && storage == TC_COEFFICIENTS_COMPACT_ALL)
                #expect(smaller ? compact < whole : compact == whole, "shrink \(shrink), \(storage): \(compact) vs \(whole)")
                _ = try Self.decode(bytes, shrink: shrink, storage: storage, memoryLimit: compact)
                if compact < whole {
                    #expect(throws: ImageDecodeError.self, "shrink \(shrink)") {
                        try Self.decode(bytes, shrink: shrink, storage: TC_COEFFICIENTS_WHOLE, memoryLimit: compact)
                    }
                }
            }
        }
        // Full size and baseline files are untouched.
        #expect(try Self.estimate(bytes, shrink: 1, storage: TC_COEFFICIENTS_COMPACT_ALL)
            == Self.estimate(bytes, shrink: 1, storage: TC_COEFFICIENTS_WHOLE))
        #expect(try Self.estimate(try Fixtures.data("testorig.jpg"), shrink: 16, storage: TC_COEFFICIENTS_COMPACT_ALL) == 0)
    }
}

/// The progressive photos of the shared corpus: same pixels at 1/8, 1/4 and 1/2, and at 1/8 (the size of a
/// thumbnail) a 20-24 MP 4:2:0 photo's buffer is 40 % of the whole blocks' (10 bytes a luma block, chroma whole),
/// a fifth with 2x2 chroma compact too (58 bytes a block).
@Suite(.enabled(if: Fixtures.corpus != nil, Comment(rawValue: Fixtures.corpusMissing)))
struct CompactCoefficientCorpusTests {
    @Test func everyProgressiveCorpusJpegGivesTheSamePixels() async throws {
        let files = try ProgressiveCorpusTests.files()
        let failures = try await Fixtures.offCooperativePool {
            try files.flatMap { file in
                let bytes = try Data(contentsOf: Fixtures.corpus!.appendingPathComponent(file))
                return try CompactCoefficientTests.shrinks.flatMap { shrink -> [String] in
                    let whole = try CompactCoefficientTests.decode(bytes, shrink: shrink, storage: TC_COEFFICIENTS_WHOLE)
                    return try CompactCoefficientTests.storages.compactMap { storage in
                        let compact = try CompactCoefficientTests.decode(bytes, shrink: shrink, storage: storage)
                        return compact.pixels == whole.pixels ? nil : "\(file) at shrink \(shrink), \(storage): pixels differ"
                    }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func aPhotoAtOneEighthNeedsLessThanHalfTheBuffer() throws {
        let bytes = try Data(contentsOf: Fixtures.corpus!.appendingPathComponent("jpeg/rachel-hisko-rEM3cK8F1pk-unsplash.jpg"))
        let estimates = try CompactCoefficientTests.shrinks.map {
            (compact: try CompactCoefficientTests.estimate(bytes, shrink: $0, storage: TC_COEFFICIENTS_COMPACT),
             all: try CompactCoefficientTests.estimate(bytes, shrink: $0, storage: TC_COEFFICIENTS_COMPACT_ALL),
             whole: try CompactCoefficientTests.estimate(bytes, shrink: $0, storage: TC_COEFFICIENTS_WHOLE))
        }
        #expect(estimates[0].whole > 70_000_000)
        #expect(estimates[0].compact < estimates[0].whole / 2, "\(estimates)")
        #expect(estimates[0].all < estimates[0].whole / 4, "\(estimates)")
        #expect(estimates.allSatisfy { $0.all < $0.whole }, "\(estimates)")
        _ = try CompactCoefficientTests.decode(bytes, shrink: 16, storage: TC_COEFFICIENTS_COMPACT, memoryLimit: estimates[0].compact)
    }
}
