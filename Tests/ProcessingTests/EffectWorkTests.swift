import Foundation
import ImageDecode
import Testing
@testable import Processing

/// Issue 33 §2: what a processing URL's filters and detectors will cost is estimated from the header (the plan),
/// and a URL over the limit is refused before its render, naming the option that costs most; alone and combined.
@Suite struct EffectWorkTests {
    static let limit = RenderLimits.defaultMaxEffectWork

    static func work(_ list: String, width: Int = 4032, height: Int = 3024, channels: Int = 3) throws -> RenderWork {
        let options = try ProcessingOptions(parsing: list)
        let plan = try options.plan(sourceWidth: width, sourceHeight: height, maxResultSide: 8192)
        return RenderWork(plan: plan, effects: options.renderEffects, channels: channels)
    }

    static func refusal(_ list: String, width: Int = 4032, height: Int = 3024) throws -> ProcessingError? {
        let options = try ProcessingOptions(parsing: list)
        let plan = try options.plan(sourceWidth: width, sourceHeight: height, maxResultSide: 8192)
        do { try options.checkEffectWork(of: plan, channels: 3, limit: limit) } catch { return error }
        return nil
    }

    @Test func theEstimateFollowsTheMaskTheResultAndTheChannels() throws {
        // libvips's mask at sigma 100 (cut at a fifth of the peak) has 359 taps; the result is 2000×1500.
        let blur = try Self.work("w:2000/bl:100")
        #expect(blur.blur == 2000 * 1500 * 3 * 359 * 2 && blur.sharpen == 0 && blur.detection == 0)
        #expect(try Self.work("w:2000/bl:100", channels: 4).blur == blur.blur / 3 * 4)
        #expect(try Self.work("w:1000/bl:100").blur == blur.blur / 4, "a quarter of the pixels, a quarter of the work")
        #expect(try Self.work("w:2000/bl:10").blur < blur.blur / 8, "a narrower mask")
        // The sharpen mask is cut at a tenth, so it is wider than the blur's at one sigma; one channel (lightness).
        let sharpen = try Self.work("w:2000/sh:100")
        #expect(sharpen.sharpen > 2000 * 1500 * 359 * 2 && sharpen.blur == 0)
        // Filters work on the crop, before padding and extend add their borders.
        #expect(try Self.work("w:2000/bl:100/pd:500").blur == blur.blur)
        #expect(try Self.work("w:2000/pix:50").pixelate == 2000 * 1500 * 3 * 2)
        // A detector searches the whole scaled image, not the crop.
        #expect(try Self.work("rs:fill:100:100/g:sm").detection == 133 * 100 * RenderWork.detectionPerPixel)
        // A crop placed by a detector, then a result cut by one: both searches count.
        let cropOnly = try Self.work("c:2000:2000:sm/rs:fill:100:100")
        let both = try Self.work("c:2000:2000:sm/rs:fill:100:50/g:sm")
        #expect(cropOnly.detection > 0 && both.detection > cropOnly.detection, "\(cropOnly) \(both)")
        #expect(try Self.work("w:100").total == 0)
    }

    @Test(arguments: [
        ("w:2000/bl:100", "blur"), ("rs:fit:3000:3000/sh:100", "sharpen"), ("w:4000/bl:60", "blur"),
        // Each under the limit alone, over it together: the larger is named.
        ("w:1400/bl:100/sh:100", "blur"), ("w:2000/bl:40/sh:100", "sharpen"),
    ])
    func overTheLimitIsRefusedNamingTheCostliestOption(_ list: String, _ option: String) throws {
        let error = try #require(try Self.refusal(list), "\(list) should be refused")
        guard case let .tooCostly(named, work, limit, _, _) = error else {
            Issue.record("\(list): \(error)")
            return
        }
        #expect(named == option && work > limit && limit == Self.limit, "\(list): \(error)")
        #expect(error.description.contains(option) && error.description.contains("billion"), "\(error)")
    }

    @Test func combinationsAreSummed() throws {
        let alone = [try Self.work("w:1400/bl:100").total, try Self.work("w:1400/sh:100").total]
        #expect(alone.allSatisfy { $0 <= Self.limit })
        #expect(try Self.work("w:1400/bl:100/sh:100").total == alone.reduce(0, +))
        #expect(try Self.refusal("w:1400/bl:100") == nil && Self.refusal("w:1400/sh:100") == nil)
        #expect(try Self.refusal("w:1400/bl:100/sh:100") != nil)
    }

    @Test(arguments: ["w:300/bl:100/sh:100", "w:1000/bl:10/sh:10", "w:2000/pix:2", "rs:fill:300:200/g:sm/bl:20",
                      "w:4032/bl:5", "w:600/sh:100/pix:8/g:sm"])
    func ordinaryUseIsAllowed(_ list: String) throws {
        let work = try Self.work(list)
        #expect(try Self.refusal(list) == nil, "\(list): \(work)")
    }
}
