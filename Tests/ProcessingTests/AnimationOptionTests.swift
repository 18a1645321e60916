import Testing
import ImageDecode
import Processing

/// `disable_animation` and imgproxy's rule for keeping an animation animated (`keepsAnimation`).
@Suite struct AnimationOptionTests {
    static let animatedGIF = ImageInfo(format: .gif, width: 10, height: 10, frameCount: 3)

    @Test func disableAnimationParsesAndNamesTheVariant() throws {
        for spelling in ["da:1", "disable_animation:1", "da:true", "da:t"] {
            let options = try ProcessingOptions(parsing: spelling)
            #expect(options.disableAnimation, "\(spelling)")
            #expect(options.canonical == "da:1")
        }
        #expect(try ProcessingOptions(parsing: "da:0").canonical == "")
        // As every imgproxy boolean: what is not true is false (imgproxy logs a warning).
        #expect(try ProcessingOptions(parsing: "da:x").disableAnimation == false)
    }

    @Test func animationIsKeptOnlyWhereEverythingAllowsIt() throws {
        let options = ProcessingOptions()
        #expect(options.keepsAnimation(of: Self.animatedGIF, in: .gif, limits: RenderLimits()))
        #expect(options.keepsAnimation(of: Self.animatedGIF, in: .webp, limits: RenderLimits()))
        for format in [ImageFormat.jpeg, .png, .avif] {
            #expect(!options.keepsAnimation(of: Self.animatedGIF, in: format, limits: RenderLimits()))
        }
        #expect(!options.keepsAnimation(of: Self.animatedGIF, in: .gif, limits: RenderLimits(maxAnimationFrames: 1)))
        #expect(!(try ProcessingOptions(parsing: "da:1")).keepsAnimation(of: Self.animatedGIF, in: .gif, limits: RenderLimits()))
        var still = Self.animatedGIF
        still.frameCount = 1
        #expect(!options.keepsAnimation(of: still, in: .gif, limits: RenderLimits()))
    }

    @Test func anAnimationKeptAnimatedIsNotTrimmed() throws {
        // A red block in a white border, as a 2-frame GIF.
        let frame = PixelBuffer(width: 6, height: 6, channels: 3, pixels: (0..<36).flatMap { (i: Int) -> [UInt8] in
            (1...4).contains(i % 6) && (1...4).contains(i / 6) ? [255, 0, 0] : [255, 255, 255]
        })
        let gif = try EncodeSettings(format: .gif).encode(frames: [frame, frame], delays: [100, 100], loopCount: 0).data
        let options = try ProcessingOptions(parsing: "t:10")
        #expect(try options.trimBounds(of: .data(gif), animated: true) == nil)
        #expect(try options.trimBounds(of: .data(gif), animated: false) == ProcessingPlan.Rect(x: 1, y: 1, width: 4, height: 4))
    }

    @Test func aGIFSourceAnswersGIFWhenNoFormatIsAsked() throws {
        let limits = RenderLimits()
        let gif = ImageInfo(format: .gif, width: 4, height: 4, frameCount: 2), png = ImageInfo(format: .png, width: 4, height: 4)
        #expect(ProcessingOptions().outputFormat(for: FormatRequest(), source: gif, defaults: .preferred(.imgproxy), limits: limits).format == .gif)
        #expect(try ProcessingOptions(parsing: "f:gif").outputFormat(for: FormatRequest(), source: png, defaults: .preferred(.imgproxy),
                                                                   limits: limits).format == .gif)
    }
}
