import Testing
import Processing

/// Sizes and rectangles worked out by hand from imgproxy's Go code (processing/prepare.go calcScale and
/// calcSizes, crop.go, extend.go, padding.go, calc_position.go, imath's rounding); each case names the
/// function whose arithmetic it follows.
@Suite struct PlanTests {
    typealias Rect = ProcessingPlan.Rect

    func plan(_ list: String, _ width: Int = 4032, _ height: Int = 3024, max: Int = 100_000) throws -> ProcessingPlan {
        try ProcessingOptions(parsing: list).plan(sourceWidth: width, sourceHeight: height, maxResultSide: max)
    }

    func size(_ plan: ProcessingPlan) -> [Int] { [plan.resultWidth, plan.resultHeight] }

    @Test func theSpecsDocumentedSizes() throws {
        // calcScale fit: shrink max(4032/300, 3024/200) = 15.12 → round(266.67) × 200.
        #expect(try size(plan("rs:fit:300:200")) == [267, 200])
        // calcScale fill: shrink min(13.44, 15.12) → 300 × 225, then cropToResult 300 × 200.
        let fill = try plan("rs:fill:300:200")
        #expect(size(fill) == [300, 200])
        #expect([fill.scaledWidth, fill.scaledHeight] == [300, 225])
        // calcPosition centre: RoundToEven((225 - 200 + 1) / 2) = 13.
        #expect(fill.resultCrop == Rect(x: 0, y: 13, width: 300, height: 200))
        #expect(try size(plan("rs:fit:300:0")) == [300, 225])
        // dpr 2: shrink 13.44 / 2 → 600 × 450, target 600 × 400, top RoundToEven(25.5) = 26.
        let retina = try plan("rs:fill:300:200/dpr:2")
        #expect(size(retina) == [600, 400])
        #expect(retina.resultCrop == Rect(x: 0, y: 26, width: 600, height: 400))
    }

    @Test func smallSourcesAreNotEnlargedUnlessAsked() throws {
        // calcScale: min shrink 0.745 < 1 → shrink reset to 1; dpr capped at 1.
        #expect(try size(plan("rs:fill:300:200", 227, 149)) == [227, 149])
        // enlarge: scale 1/0.745 → round(304.7) = 305 × 200, crop left RoundToEven((305-300+1)/2) = 3.
        let enlarged = try plan("rs:fill:300:200/el:1", 227, 149)
        #expect(size(enlarged) == [300, 200])
        #expect(enlarged.resultCrop == Rect(x: 3, y: 0, width: 300, height: 200))
        // calcSizes fill-down: diffH 1.342 > diffW 1.322 → width Round(149 × 1.5 = 223.5) = 224.
        let down = try plan("rs:fill-down:300:200", 227, 149)
        #expect(size(down) == [224, 149])
        #expect(down.resultCrop == Rect(x: 2, y: 0, width: 224, height: 149))
        // extend.go: canvas 300 × 200, image at RoundToEven(74/2) = 37, RoundToEven(52/2) = 26.
        let extended = try plan("rs:fill:300:200/ex:1", 227, 149)
        #expect(size(extended) == [300, 200])
        #expect(extended.canvas == .init(width: 300, height: 200, image: Rect(x: 37, y: 26, width: 227, height: 149)))
        #expect(try plan("rs:fill:300:200/ex:1:nowe", 227, 149).canvas == .init(width: 300, height: 200, image: Rect(x: 0, y: 0, width: 227, height: 149)))
        #expect(try plan("rs:fill:300:200/ex:1:soea", 227, 149).canvas == .init(width: 300, height: 200, image: Rect(x: 73, y: 51, width: 227, height: 149)))
        // A small source with dpr 2 and no extend: dpr is raised then capped at the shrink (1): same size.
        #expect(try size(plan("rs:fit:300:200/dpr:2", 227, 149)) == [227, 149])
    }

    @Test func resizingTypes() throws {
        // force: per-axis shrink 13.44 and 15.12.
        let force = try plan("rs:force:300:200")
        #expect(size(force) == [300, 200])
        #expect(force.scaleX != force.scaleY)
        // force with a missing height keeps the source's height.
        #expect(try size(plan("rt:force/w:300")) == [300, 3024])
        // auto: landscape source into a portrait box is fit (shrink max(20.16, 10.08)).
        #expect(try size(plan("rs:auto:200:300")) == [200, 150])
        // auto: same orientation is fill.
        #expect(try size(plan("rs:auto:300:200")) == [300, 200])
    }

    @Test func gravityPlacesTheResultCrop() throws {
        // Portrait 3024 × 4032 fill 200 × 200: shrink 15.12 → 200 × 267; crop rows from 0 to 67.
        func top(_ gravity: String) throws -> Int { try plan("rs:fill:200:200/g:\(gravity)", 3024, 4032).resultCrop.y }
        #expect(try top("ce") == 34)  // RoundToEven((67 + 1) / 2)
        #expect(try top("no") == 0)
        #expect(try top("so") == 67)
        #expect(try top("no:0:10") == 10)
        #expect(try top("so:0:10") == 57)  // south offsets push inwards
        #expect(try top("no:0:0.1") == 27)  // fractional: ScaleToEven(267, 0.1) = 27
        #expect(try top("no:0:500") == 67)  // clamped inside
        #expect(try top("fp:0.5:0.75") == 67)  // ScaleToEven(267, 0.75) - 100 = 100, clamped to 67
        #expect(try top("fp:0.5:0.5") == 34)  // RoundToEven(133.5) = 134 - 100
        // Landscape fill 200 × 200 → 267 × 200: focus x 0.6 → RoundToEven(160.2) - 100 = 60.
        #expect(try plan("rs:fill:200:200/g:fp:0.6:0.5").resultCrop.x == 60)
        #expect(try plan("rs:fill:200:200/g:ea").resultCrop.x == 67)
        // Pixel offsets are multiplied by dpr; fractions are not.
        #expect(try plan("rs:fill:200:200/g:no:0:10/dpr:2", 3024, 4032).resultCrop.y == 20)
    }

    @Test func smartGravityAsksForAFocusPoint() throws {
        let smart = try plan("rs:fill:300:200/g:sm")
        let detection = try #require(smart.detection)
        #expect(detection.stage == .resultCrop)
        #expect(detection.gravity == .smart)
        #expect([detection.imageWidth, detection.imageHeight, detection.cropWidth, detection.cropHeight] == [300, 225, 300, 200])
        // Resolved like fp: RoundToEven(225 × 0.9 = 202.5) = 202, minus 100, clamped to 25.
        let resolved = smart.resolvingDetection(focusX: 0.5, focusY: 0.9)
        #expect(resolved.detection == nil)
        #expect(resolved.resultCrop == Rect(x: 0, y: 25, width: 300, height: 200))
        #expect(smart.resolvingDetection(focusX: 0.5, focusY: 0.5).resultCrop.y == 12)
        #expect(try plan("rs:fill:300:200/g:entropy").detection?.gravity == .entropy)
        // Nothing to cut: no detection needed.
        #expect(try plan("rs:fit:300:200/g:sm").detection == nil)
        // A smart crop option runs on the source.
        #expect(try plan("c:1000:1000:sm").detection?.stage == .sourceCrop)
    }

    @Test func cropBeforeResizing() throws {
        // CalcCropSize: fractions of the side; calcPosition centre RoundToEven(2017/2) = 1008, RoundToEven(1513/2) = 756.
        let half = try plan("c:0.5:0.5/rs:fit:300:0")
        #expect(half.sourceCrop == Rect(x: 1008, y: 756, width: 2016, height: 1512))
        #expect(size(half) == [300, 225])
        #expect(try plan("c:1000:500:nowe").sourceCrop == Rect(x: 0, y: 0, width: 1000, height: 500))
        #expect(try plan("c:1000:500:soea").sourceCrop == Rect(x: 3032, y: 2524, width: 1000, height: 500))
        // 0 keeps the side; sizes over the source are clamped.
        #expect(try plan("c:0:500:no").sourceCrop == Rect(x: 0, y: 0, width: 4032, height: 500))
        #expect(try plan("c:9000:9000").sourceCrop == Rect(x: 0, y: 0, width: 4032, height: 3024))
        // The crop's own gravity, else the main one.
        #expect(try plan("g:so/c:1000:500").sourceCrop.y == 2524)
    }

    @Test func regionInSourceMapsTheResultBack() throws {
        // fill 300 × 200: shrink 13.44, rows 13…213 of the scaled image → 174.72…2862.72 of the source.
        let region = try plan("rs:fill:300:200").regionInSource
        #expect(region.x == 0 && abs(region.y - 174.72) < 1e-9)
        #expect(abs(region.width - 4032) < 1e-9 && abs(region.height - 2688) < 1e-9)
        let cropped = try plan("c:2000:2000:nowe/rs:fill:100:100").regionInSource
        #expect(cropped.x == 0 && cropped.y == 0 && abs(cropped.width - 2000) < 1e-9)
    }

    @Test func zoomMinSizesAndPadding() throws {
        // zoom 2: shrink 15.12 / 2 = 7.56 → 533 × 400.
        #expect(try size(plan("rs:fit:300:200/z:2")) == [533, 400])
        // min-width 400: shrink 4032 / 400 = 10.08 on both axes → 400 × 300, then cut to the 300 × 200 box.
        let minimum = try plan("rs:fit:300:200/mw:400")
        #expect([minimum.scaledWidth, minimum.scaledHeight] == [400, 300])
        #expect(minimum.resultCrop == Rect(x: 50, y: 50, width: 300, height: 200))
        // padding.go: ScaleToEven(10 × 2), ScaleToEven(20 × 2) around 533 × 400.
        let padded = try plan("rs:fit:300:200/dpr:2/pd:10:20")
        #expect(padded.padding == .init(top: 20, right: 40, bottom: 20, left: 40))
        #expect(size(padded) == [613, 440])
        // zoom does not scale padding.
        #expect(try plan("rs:fit:300:200/z:2/pd:10").padding == .init(top: 10, right: 10, bottom: 10, left: 10))
    }

    @Test func extendAspectRatioAndRotation() throws {
        // calcSizes: 300 × 225 into a 1:1 box → canvas 300 × 300, image at RoundToEven(76/2) = 38.
        let square = try plan("rs:fit:300:300/exar:1")
        #expect(square.canvas == .init(width: 300, height: 300, image: Rect(x: 0, y: 38, width: 300, height: 225)))
        #expect(try plan("rs:fit:300:300/exar:1:no").canvas == .init(width: 300, height: 300, image: Rect(x: 0, y: 0, width: 300, height: 225)))
        // rotate 90 exchanges the sides first: 3024 × 4032 into 300 × 200 → 150 × 200.
        #expect(try size(plan("rs:fit:300:200/rot:90")) == [150, 200])
        #expect(try size(plan("rs:fit:300:200/rot:180")) == [267, 200])
    }

    @Test func resultsOverTheLimitAreRefusedBeforeRendering() throws {
        #expect(throws: ProcessingError.resultTooLarge(width: 5000, height: 3750, limit: 4096)) {
            try plan("rs:fit:5000:5000/el:1", max: 4096)
        }
        // Not enlarged, the same request stays at the source's size.
        #expect(try size(plan("rs:fit:5000:5000", max: 4096)) == [4032, 3024])
        // dpr, zoom and padding count.
        #expect(throws: ProcessingError.self) { try plan("rs:fit:3000:3000/dpr:2/el:1", max: 4096) }
        // dpr never enlarges on its own: it is capped at the shrink (prepare.go calcScale).
        #expect(try size(plan("rs:fit:3000:3000/dpr:2", max: 4096)) == [4032, 3024])
        #expect(throws: ProcessingError.self) { try plan("w:4000/pd:100", max: 4096) }
        #expect(throws: ProcessingError.self) { try plan("w:99999999999/el:1", max: 8192) }
    }

    @Test func autoRotateChoosesTheSizePlanned() throws {
        let info = ImageInfo(format: .jpeg, width: 4032, height: 3024, orientation: .rotate90)
        #expect(try ProcessingOptions(parsing: "rs:fit:300:200").plan(for: info, maxResultSide: 8192).resultWidth == 150)
        #expect(try ProcessingOptions(parsing: "rs:fit:300:200/ar:0").plan(for: info, maxResultSide: 8192).resultWidth == 267)
    }
}
