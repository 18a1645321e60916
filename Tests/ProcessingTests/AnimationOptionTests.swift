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

    @Test func aGIFSourceAnswersGIFWhenNoFormatIsAsked() throws {
        #expect(ProcessingOptions().outputFormat(asked: nil, source: .gif) == .gif)
        #expect(try ProcessingOptions(parsing: "f:gif").outputFormat(asked: nil, source: .png) == .gif)
    }
}
