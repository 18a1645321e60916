import Foundation
import Testing
import Processing

/// Issue 30's first requirement, "Pixels do not move": each golden case rendered again must match the PNG
/// rendered before the renderers were merged, pixel for pixel, or by SSIM ≥ 0.995 when the change is explained.
/// `THUMBCACHE_GOLDEN_WRITE=1` rewrites the stored PNGs instead (Golden/README.md).
@Suite struct GoldenSetTests {
    static let minimumSSIM = 0.995

    /// Cases whose pixels changed on purpose, with why: only these may pass on SSIM. Empty: nothing has moved.
    static let explainedChanges: [String: String] = [:]

    static let writing = ProcessInfo.processInfo.environment["THUMBCACHE_GOLDEN_WRITE"] == "1"

    @Test func committedFixturesRenderAsStored() async throws {
        let cases = GoldenCase.cases(.fixtures)
        #expect(cases.count == GoldenCase.fixtureInputs.count * GoldenCase.renditions.count)
        #expect(cases.count >= 8 * 7)
        try await Self.check(cases)
    }

    @Test(.enabled(if: GoldenCase.corpus != nil,
                   "shared corpus not found (set THUMBCACHE_CORPUS or place it at ../shared/corpus): its golden cases are not checked; the committed fixtures' still are"))
    func corpusRendersAsStored() async throws {
        let cases = GoldenCase.cases(.corpus)
        #expect(Set(GoldenCase.corpusInputs).count >= 30)
        #expect(cases.count == GoldenCase.corpusInputs.count * GoldenCase.renditions.count)
        try await Self.check(cases)
    }

    @Test func ssimIsOneForIdenticalAndFallsForAShift() {
        let image = PixelBuffer(width: 24, height: 16, channels: 3,
                                pixels: (0..<(24 * 16 * 3)).map { UInt8(truncatingIfNeeded: ($0 / 3) * 37 % 251) })
        #expect(SSIM.index(image, image) == 1)
        var brighter = image
        brighter.pixels = brighter.pixels.map { $0 &+ ($0 < 250 ? 2 : 0) }
        let close = SSIM.index(image, brighter) ?? 0
        #expect(close > 0.99 && close < 1)
        let shifted = PixelBuffer(width: 24, height: 16, channels: 3, pixels: Array(image.pixels.dropFirst(3)) + [0, 0, 0])
        #expect((SSIM.index(image, shifted) ?? 1) < 0.9)
        #expect(SSIM.index(image, PixelBuffer(width: 16, height: 24, channels: 3, pixels: image.pixels)) == nil)
    }

    /// Renders and compares every case, asserting how many were compared so an empty run cannot pass.
    private static func check(_ cases: [GoldenCase]) async throws {
        // A long CPU-bound loop on a thread of its own: on the cooperative pool it starves other suites' timers.
        let (failures, compared) = try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try compare(cases) }) }.start()
        }
        for failure in failures { Issue.record(Comment(rawValue: failure)) }
        #expect(compared == cases.count, "compared \(compared) of \(cases.count) golden cases")
    }

    private static func compare(_ cases: [GoldenCase]) throws -> (failures: [String], compared: Int) {
        var failures: [String] = [], compared = 0
        for goldenCase in cases {
            let stored = GoldenCase.golden.appendingPathComponent(goldenCase.goldenPath)
            let rendered: Data
            do { rendered = try goldenCase.render() } catch {
                failures.append("\(goldenCase): cannot render: \(error)")
                continue
            }
            if writing {
                try FileManager.default.createDirectory(at: stored.deletingLastPathComponent(), withIntermediateDirectories: true)
                try rendered.write(to: stored)
                compared += 1
                continue
            }
            guard let expected = try? Data(contentsOf: stored) else {
                failures.append("\(goldenCase): no golden file \(goldenCase.goldenPath) (THUMBCACHE_GOLDEN_WRITE=1 writes it)")
                continue
            }
            compared += 1
            if let failure = try difference(goldenCase, rendered: ImageDecoder.decode(rendered), stored: ImageDecoder.decode(expected)) {
                failures.append(failure)
            }
        }
        return (failures, compared)
    }

    /// nil when the case passes: identical decoded pixels, or an explained change within `minimumSSIM`.
    static func difference(_ goldenCase: GoldenCase, rendered: PixelBuffer, stored: PixelBuffer) -> String? {
        if rendered == stored { return nil }
        let shape = "\(rendered.width)x\(rendered.height)x\(rendered.channels), stored \(stored.width)x\(stored.height)x\(stored.channels)"
        guard rendered.channels == stored.channels, let ssim = SSIM.index(rendered, stored) else {
            return "\(goldenCase): shape changed: \(shape)"
        }
        let value = String(format: "%.5f", ssim)
        guard let reason = explainedChanges[goldenCase.goldenPath] else {
            return "\(goldenCase): pixels moved (SSIM \(value)) and the change is not in explainedChanges"
        }
        return ssim >= minimumSSIM ? nil : "\(goldenCase): SSIM \(value) < \(minimumSSIM) despite the explanation \"\(reason)\""
    }
}
