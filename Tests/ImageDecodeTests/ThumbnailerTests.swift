import Foundation
import Testing
@testable import ImageDecode

@Suite struct ThumbnailerTests {
    let thumbnailer = Thumbnailer()

    @Test func containFitsTheLongestSide() throws {
        let made = try thumbnailer.makeThumbnail(from: Fixtures.data("testorig.jpg"), ThumbnailRequest(size: 100))
        #expect((made.width, made.height, made.format) == (100, 66, .jpeg))
        let decoded = try ImageDecoder.decode(made.data)
        #expect((decoded.width, decoded.height) == (100, 66))
        #expect(made.sourceInfo.width == 227)
    }

    @Test func coverFillsAndCropsASquare() throws {
        let made = try thumbnailer.makeThumbnail(from: Fixtures.data("testorig.jpg"), ThumbnailRequest(size: 64, fit: .cover))
        #expect((made.width, made.height) == (64, 64))
    }

    @Test func neverUpscalesByDefault() throws {
        let data = try Fixtures.data("pngsuite/basn2c08.png")
        let made = try thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 256))
        #expect((made.width, made.height) == (32, 32))
        let cover = try thumbnailer.makeThumbnail(from: Fixtures.data("pngsuite/cdfn2c08.png"), ThumbnailRequest(size: 256, fit: .cover))
        #expect((cover.width, cover.height) == (8, 32))
        let larger = try thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 64, allowUpscale: true))
        #expect((larger.width, larger.height) == (64, 64))
    }

    @Test func pngRoundTripIsLosslessWhenNotResized() throws {
        for name in ["pngsuite/basn6a08.png", "pngsuite/basn2c08.png", "pngsuite/tbbn3p08.png"] {
            let data = try Fixtures.data(name)
            let made = try thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 32, format: .png))
            #expect(try ImageDecoder.decode(made.data) == ImageDecoder.decode(data), "\(name)")
        }
    }

    @Test func jpegRoundTripIsClose() throws {
        let data = try Fixtures.data("testorig.jpg")
        let made = try thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 227, quality: 95))
        let difference = try Fixtures.meanAbsoluteDifference(ImageDecoder.decode(made.data), ImageDecoder.decode(data))
        #expect(difference < 3)
        let small = try thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 227, quality: 20))
        #expect(small.data.count < made.data.count)
    }

    @Test func formatFollowsTransparencyUnlessRequested() throws {
        let alpha = try Fixtures.data("pngsuite/basn6a08.png")
        #expect(try thumbnailer.makeThumbnail(from: alpha, ThumbnailRequest(size: 16)).format == .png)
        #expect(try thumbnailer.makeThumbnail(from: Fixtures.data("pngsuite/basn2c08.png"), ThumbnailRequest(size: 16)).format == .jpeg)
        let flattened = try thumbnailer.makeThumbnail(from: alpha, ThumbnailRequest(size: 16, format: .jpeg))
        #expect(try flattened.format == .jpeg && ImageDecoder.decode(flattened.data).channels == 3)
    }

    @Test func orientationSwapsTheBox() throws {
        let made = try thumbnailer.makeThumbnail(from: Fixtures.data("orientation/Landscape_6.jpg"), ThumbnailRequest(size: 30))
        #expect(made.sourceInfo.orientation == .rotate90)
        #expect((made.sourceInfo.width, made.sourceInfo.height) == (120, 180))
        #expect((made.width, made.height) == (30, 20))
    }

    @Test func invalidRequestsAreRefused() throws {
        let data = try Fixtures.data("testorig.jpg")
        for request in [ThumbnailRequest(size: 0), ThumbnailRequest(size: 9000), ThumbnailRequest(size: 10, quality: 0)] {
            let error = #expect(throws: ImageDecodeError.self) { try thumbnailer.makeThumbnail(from: data, request) }
            guard case .invalidRequest = error else { Issue.record("got \(String(describing: error))"); continue }
        }
    }

    @Test func shrinkOnLoadKeepsTwiceTheTarget() {
        #expect(JPEGDecoder.scaleDenominator(shrink: 1.5) == 1)
        #expect(JPEGDecoder.scaleDenominator(shrink: 4) == 2)
        #expect(JPEGDecoder.scaleDenominator(shrink: 15.9) == 4)
        #expect(JPEGDecoder.scaleDenominator(shrink: 23.4) == 8)
    }

    /// 1975 rows decoded at 1/8 are 247 rows spanning 246.875 (libjpeg rounds the scaled size up); the
    /// resizer must map onto that span. Mapping onto 247 (and 26 columns for 25.375) shifted the far edges by
    /// a quarter of an output pixel: SSIM against Pillow fell to 0.992 on corpus photos of such sizes, and
    /// these stripes differed by 3.9 levels on average from a full-size resize (0.5 now).
    @Test func reducedJPEGDecodeKeepsTheImageInPlace() throws {
        let source = Fixtures.stripes(width: 203, height: 1975, period: 140)
        let jpeg = try ImageEncoder.encode(source, as: .jpeg, quality: 95)
        let made = try thumbnailer.makeThumbnail(from: jpeg, ThumbnailRequest(size: 110, format: .png))
        #expect(made.sourceInfo.width == 203 && (made.width, made.height) == (11, 110))
        let exact = try Fixtures.resize(ImageDecoder.decode(jpeg), to: 11, 110, boxPreShrink: false)
        let thumbnail = try ImageDecoder.decode(made.data)
        #expect(Fixtures.meanAbsoluteDifference(thumbnail, exact) < 1.5)
    }

    @Test func concurrentThumbnailsAgree() async throws {
        let data = try Fixtures.data("testorig.jpg")
        let expected = try thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 50)).data
        let results = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<8 { group.addTask { try Thumbnailer().makeThumbnail(from: data, ThumbnailRequest(size: 50)).data } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0 == expected })
    }

    /// Issue 30, one renderer: a thumbnail is `PlanRenderer`'s drawing of the request's plan (contain is `fit`,
    /// cover `fill`, a smart crop a detecting gravity), and its memory the renderer's one estimate for that plan.
    @Test func aThumbnailIsTheRenderersDrawingOfItsPlan() throws {
        let data = try Fixtures.data("orientation/Landscape_6.jpg")
        let info = try thumbnailer.probe(data)
        for request in [ThumbnailRequest(size: 64, format: .png), ThumbnailRequest(size: 64, fit: .cover, format: .png),
                        ThumbnailRequest(size: 64, fit: .cover, format: .png, smartCrop: .entropy),
                        ThumbnailRequest(size: 300, format: .png, allowUpscale: true)] {
            let plan = request.plan(for: info)
            #expect((plan.geometry.resizingType, plan.geometry.enlarge) == (request.fit == .contain ? .fit : .fill, request.allowUpscale))
            #expect((plan.detection != nil) == (request.smartCrop != nil))
            let made = try thumbnailer.makeThumbnail(from: data, request)
            #expect(try ImageDecoder.decode(made.data) == PlanRenderer().render(from: .data(data), plan: plan))
            #expect(made.sourceInfo == info)
            #expect(try thumbnailer.workingMemory(for: .data(data), request)
                == PlanRenderer().workingMemory(for: .data(data), plan: plan))
        }
    }

    @Test func errorMessagesSayWhatIsWrong() {
        #expect(ImageDecodeError.tooLarge(width: 10, height: 10, limit: 50).description.contains("limit of 50"))
        #expect(ImageDecodeError.truncated.description.contains("truncated"))
    }
}
