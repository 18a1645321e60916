import Testing
import ImageDecode
import Processing

/// The one output-format rule (`ProcessingOptions.outputFormat(for:source:defaults:limits:)`), imgproxy's
/// `determineOutputFormat`, `isImageTypeCompatible` and `findPreferredFormat` (processing/processing.go) as a table.
@Suite struct OutputFormatRuleTests {
    static let limits = RenderLimits()
    static func source(_ format: ImageFormat, alpha: Bool = false, frames: Int? = nil) -> ImageInfo {
        ImageInfo(format: format, width: 40, height: 30, hasAlpha: alpha, frameCount: frames)
    }

    static func decide(options: String = "", named: ImageFormat? = nil, accepted: [ImageFormat] = [], _ source: ImageInfo,
                       defaults: DefaultOutputFormat = .preferred(.imgproxy), limits: RenderLimits = limits) throws -> FormatDecision {
        try ProcessingOptions(parsing: options).outputFormat(for: FormatRequest(named: named, accepted: accepted), source: source,
                                                             defaults: defaults, limits: limits)
    }

    @Test(arguments: [
        // A preferred source keeps its format; any other is the first preferred format that fits.
        (source(.jpeg), ImageFormat.jpeg), (source(.png), .png), (source(.png, alpha: true), .png), (source(.gif, frames: 3), .gif),
        (source(.heic), .jpeg), (source(.heic, alpha: true), .png), (source(.tiff), .jpeg), (source(.bmp), .jpeg),
        (source(.ico, alpha: true), .png), (source(.svg, alpha: true), .png), (source(.jxl), .jpeg), (source(.avif), .jpeg),
        (source(.webp), .jpeg), (source(.webp, alpha: true), .png),
        // Animated and not preferred: the first preferred format that saves animation.
        (source(.webp, frames: 4), .gif), (source(.webp, alpha: true, frames: 4), .gif),
    ])
    func noFormatNamedFollowsThePreferredFormats(source: ImageInfo, expected: ImageFormat) throws {
        let decision = try Self.decide(source)
        #expect(decision == FormatDecision(format: expected), "\(source.format)")
    }

    @Test func transparencyCountsPaddingAndExtendUnlessABackgroundFlattensIt() throws {
        #expect(try Self.decide(options: "pd:10", Self.source(.heic)).format == .png)
        #expect(try Self.decide(options: "ex:1/rs:fit:100:100", Self.source(.heic)).format == .png)
        #expect(try Self.decide(options: "bg:ffffff", Self.source(.heic, alpha: true)).format == .jpeg)
        #expect(try Self.decide(options: "bg:ffffff/pd:10", Self.source(.tiff)).format == .jpeg)
        // A preferred source's own format stands whatever transparency there is (imgproxy's order).
        #expect(try Self.decide(options: "pd:10", Self.source(.jpeg)).format == .jpeg)
    }

    @Test func anAnimationIsAStillWhenTheServerOrTheURLSaysSo() throws {
        let animatedWebP = Self.source(.webp, frames: 4)
        #expect(try Self.decide(animatedWebP, limits: RenderLimits(maxAnimationFrames: 1)).format == .jpeg)
        #expect(try Self.decide(options: "da:1", animatedWebP).format == .jpeg)
        // Nothing in the list saves animation: the first (a still).
        let stills = try PreferredFormats(parsing: "png,jpeg")
        #expect(try Self.decide(animatedWebP, defaults: .preferred(stills)).format == .png)
    }

    @Test func formatsFromAcceptAreTakenInOrderButNotForAnAnimation() throws {
        let still = Self.source(.jpeg), animated = Self.source(.gif, frames: 3)
        #expect(try Self.decide(accepted: [.jxl, .avif, .webp], still) == FormatDecision(format: .jxl, fallback: .jpeg))
        #expect(try Self.decide(accepted: [.avif, .webp], still) == FormatDecision(format: .avif, fallback: .jpeg))
        // imgproxy: AVIF and JPEG XL save no animation, so an animated answer is WebP when taken, else the default.
        #expect(try Self.decide(accepted: [.jxl, .avif, .webp], animated) == FormatDecision(format: .webp, fallback: .gif))
        #expect(try Self.decide(accepted: [.avif], animated) == FormatDecision(format: .gif))
        // An animation the answer will not keep is a still: AVIF again.
        #expect(try Self.decide(options: "da:1", accepted: [.avif, .webp], animated) == FormatDecision(format: .avif, fallback: .gif))
        #expect(try Self.decide(accepted: [.avif], animated, limits: RenderLimits(maxAnimationFrames: 1)).format == .avif)
        // The default and the preferred format alike: no fallback to weigh.
        #expect(try Self.decide(accepted: [.webp], Self.source(.webp), defaults: .preferred(.encodable)) == FormatDecision(format: .webp))
    }

    @Test func enforcedFormatsReplaceANamedOneButNotForAnAnimation() throws {
        let still = Self.source(.png), animated = Self.source(.gif, frames: 3)
        #expect(try Self.decide(named: .png, accepted: [.jxl, .avif, .webp], still) == FormatDecision(format: .jxl))
        #expect(try Self.decide(options: "f:png", accepted: [.avif], still) == FormatDecision(format: .avif))
        #expect(try Self.decide(named: .gif, accepted: [.jxl, .avif, .webp], animated) == FormatDecision(format: .webp))
        #expect(try Self.decide(named: .gif, accepted: [.jxl, .avif], animated) == FormatDecision(format: .gif))
        #expect(try Self.decide(named: .png, still) == FormatDecision(format: .png))
        // imgproxy refuses SVG before it looks at enforced formats.
        #expect(try Self.decide(named: .svg, accepted: [.webp], still) == FormatDecision(format: .svg))
    }

    @Test func theShortGrammarsDefaultIsAStillJPEGUnlessAlpha() throws {
        #expect(try Self.decide(Self.source(.webp, frames: 4), defaults: .jpegUnlessAlpha).format == .jpeg)
        #expect(try Self.decide(Self.source(.gif, alpha: true, frames: 4), defaults: .jpegUnlessAlpha).format == .png)
        // An animated WebP is never weighed against a still JPEG: it stands, as if named.
        #expect(try Self.decide(accepted: [.avif, .webp], Self.source(.gif, frames: 4), defaults: .jpegUnlessAlpha)
                == FormatDecision(format: .webp))
        #expect(try Self.decide(accepted: [.avif, .webp], Self.source(.jpeg), defaults: .jpegUnlessAlpha)
                == FormatDecision(format: .avif, fallback: .jpeg))
    }

    @Test func theCLIsListKeepsEveryWrittenFormat() throws {
        for format in ImageFormat.encodable {
            #expect(try Self.decide(Self.source(format), defaults: .preferred(.encodable)).format == format)
        }
        #expect(try Self.decide(Self.source(.svg), defaults: .preferred(.encodable)).format == .jpeg)
        #expect(try Self.decide(Self.source(.svg, alpha: true), defaults: .preferred(.encodable)).format == .png)
    }

    @Test func preferredFormatsAreValidated() throws {
        #expect(PreferredFormats.imgproxy.formats == [.jpeg, .png, .gif])
        #expect(try PreferredFormats(parsing: "jpg, webp,tif,jpeg").formats == [.jpeg, .webp, .tiff])
        for bad in ["", "jpeg,", "svg", "jpeg,nope", "jpeg png"] {
            #expect(throws: PreferredFormats.Invalid.self, "\(bad)") { try PreferredFormats(parsing: bad) }
        }
        let error = try #require(throws: PreferredFormats.Invalid.self) { try PreferredFormats(parsing: "png,svg") }
        #expect(error.description.contains("\"svg\""))
        #expect(error.description.contains("jpeg"))
    }
}
