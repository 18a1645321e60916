import Testing
import Processing

/// `max_result_dimension` (`mrd`) and the per-request source limits (`msr`, `msfs`): parsed, in canonical form, and
/// planned as imgproxy's processing/prepare.go limitScale does.
@Suite struct MaxResultDimensionTests {
    /// imgproxy's `TestResultSizeLimit` (processing/processing_test.go, Apache-2.0), its 41 cases as data: options on
    /// its testdata/geometry.png (200 × 100) → the result's size.
    static let imgproxyResultSizeLimit: [(options: String, width: Int, height: Int)] = [
        ("mrd:1000/rs:fit:100:100", 100, 50),
        ("mrd:50/rs:fit:100:100", 50, 25),
        ("mrd:50/rs:fit:0:0", 50, 25),
        ("mrd:100/rs:fit:0:100", 100, 50),
        ("mrd:50/rs:fit:150:0", 50, 25),
        ("mrd:100/rs:fit:1000:1000", 100, 50),
        ("mrd:100/rs:fit:1000:1000/el:1", 100, 50),
        ("mrd:100/rs:fit:1000:2000/ex:1", 50, 100),
        ("mrd:100/rs:fit:1000:2000/exar:1", 50, 100),
        ("mrd:100/rs:fit:100:150/rot:90", 50, 100),
        ("mrd:100/rs:fit:0:0/rot:90", 50, 100),
        ("mrd:200/rs:fit:100:100/pd:100:200:300:400", 200, 129),
        ("mrd:1000/rs:fill:100:100", 100, 100),
        ("mrd:50/rs:fill:100:100", 50, 50),
        ("mrd:50/rs:fill:1000:50", 50, 13),
        ("mrd:50/rs:fill:100:1000", 50, 50),
        ("mrd:50/rs:fill:0:0", 50, 25),
        ("mrd:100/rs:fill:0:100", 100, 50),
        ("mrd:50/rs:fill:150:0", 50, 25),
        ("mrd:100/rs:fill:1000:1000", 100, 50),
        ("mrd:100/rs:fill:1000:1000/el:1", 100, 100),
        ("mrd:100/rs:fill:1000:2000/ex:1", 50, 100),
        ("mrd:100/rs:fill:1000:2000/exar:1", 50, 100),
        ("mrd:100/rs:fill:100:150/rot:90", 67, 100),
        ("mrd:100/rs:fill:0:0/rot:90", 50, 100),
        ("mrd:200/rs:fill:100:100/pd:100:200:300:400", 200, 144),
        ("mrd:1000/rs:fill-down:100:100", 100, 100),
        ("mrd:50/rs:fill-down:100:100", 50, 50),
        ("mrd:50/rs:fill-down:1000:50", 50, 3),
        ("mrd:50/rs:fill-down:100:1000", 5, 50),
        ("mrd:50/rs:fill-down:0:0", 50, 25),
        ("mrd:100/rs:fill-down:0:100", 100, 50),
        ("mrd:50/rs:fill-down:150:0", 50, 25),
        ("mrd:100/rs:fill-down:1000:1000", 100, 100),
        ("mrd:100/rs:fill-down:1000:1000/el:1", 100, 100),
        ("mrd:100/rs:fill-down:1000:2000/ex:1", 50, 100),
        ("mrd:100/rs:fill-down:1000:2000/exar:1", 50, 100),
        ("mrd:100/rs:fill-down:1000:1500/rot:90", 67, 100),
        ("mrd:100/rs:fill-down:0:0/rot:90", 50, 100),
        ("mrd:200/rs:fill-down:100:100/pd:100:200:300:400", 200, 144),
        ("mrd:200/rs:fill-down:1000:1000/pd:100:200:300:400", 200, 144),
    ]

    func size(_ list: String, _ width: Int = 200, _ height: Int = 100, max: Int = 100_000) throws -> [Int] {
        let plan = try ProcessingOptions(parsing: list).plan(sourceWidth: width, sourceHeight: height, maxResultSide: max)
        return [plan.resultWidth, plan.resultHeight]
    }

    @Test(arguments: imgproxyResultSizeLimit)
    func imgproxysResultSizeLimitTable(_ testCase: (options: String, width: Int, height: Int)) throws {
        #expect(try size(testCase.options) == [testCase.width, testCase.height], "\(testCase.options)")
    }

    @Test func theLimitScalesDprAndPaddingWithTheImage() throws {
        // limitScale multiplies dpr by the same factor: 2 × (100 / 200) = 1, so the padding (10 CSS px) is 10 again.
        let plan = try ProcessingOptions(parsing: "mrd:110/rs:fit:50:50/dpr:2/pd:10").plan(sourceWidth: 200, sourceHeight: 100,
                                                                                           maxResultSide: 8192)
        // Unlimited: 100 × 50 + 2 × 20 = 140 × 90; down by 110/140: dpr 2 → 1.571, scaled 79 × 39, padding
        // RoundToEven(15.71) = 16 a side. The padding is rounded after the scale, so, as in imgproxy, the result can
        // end a pixel over the limit (111).
        #expect(abs(plan.dprScale - 2 * 110 / 140) < 1e-9)
        #expect([plan.scaledWidth, plan.scaledHeight] == [79, 39])
        #expect(plan.padding == .init(top: 16, right: 16, bottom: 16, left: 16))
        #expect([plan.resultWidth, plan.resultHeight] == [111, 71])
        #expect(try size("mrd:0/rs:fit:150:0") == [150, 75])
        #expect(try size("mrd:-5/rs:fit:150:0") == [150, 75])
    }

    @Test func theServersHardLimitStillRefuses() throws {
        // mrd only scales down to its own limit; a result over the hard limit is still refused.
        #expect(throws: ProcessingError.resultTooLarge(width: 400, height: 200, limit: 300)) {
            try size("mrd:500/rs:fit:400:0/el:1", max: 300)
        }
        #expect(try size("mrd:300/rs:fit:400:0/el:1", max: 300) == [300, 150])
    }

    @Test func theLimitsAreParsedAndKeptInTheCanonicalForm() throws {
        let options = try ProcessingOptions(parsing: "max_result_dimension:300/max_src_resolution:0.00001/max_src_file_size:2048")
        #expect(options.geometry.maxResultDimension == 300)
        #expect(options.maxSourceResolution == 10)
        #expect(options.maxSourceFileSize == 2048)
        #expect(options.canonical == "mrd:300/msr:0.00001/msfs:2048")
        #expect(try ProcessingOptions(parsing: options.canonical).canonical == options.canonical)
        #expect(try ProcessingOptions(parsing: "msr:12.5").canonical == "msr:12.5")
        #expect(try ProcessingOptions(parsing: "msr:0.000291").maxSourceResolution == 291)
        // No limit and the defaults are one image.
        #expect(try ProcessingOptions(parsing: "mrd:0/msfs:0").canonical == "")
        #expect(try ProcessingOptions(parsing: "msr:0").canonical == "msr:0")
    }

    @Test(arguments: ["mrd:x", "mrd:1.5", "mrd:1:2", "msr:-1", "msr:abc", "msr:1e12", "msfs:-1", "msfs:1.5", "msfs:1:2"])
    func badLimitsNameTheirOption(_ list: String) {
        let name = String(list.prefix { $0 != ":" })
        #expect {
            try ProcessingOptions(parsing: list)
        } throws: { error in
            guard case .badArgument(let option, _, _) = error as? ProcessingError else { return false }
            return option == name
        }
    }

    @Test func theyAreSecurityOptions() {
        #expect(OptionName(spelling: "mrd")?.isSecurityOption == true)
        #expect(OptionName(spelling: "max_src_resolution")?.isSecurityOption == true)
        #expect(OptionName(spelling: "msfs")?.isSecurityOption == true)
        #expect(OptionName(spelling: "w")?.isSecurityOption == false)
        #expect(!OptionName.unsupported.contains("mrd"))
    }
}
