import ImageDecode
import Processing

/// What is made of a source, in one description for both grammars, `get`, `warm` and library callers: imgproxy's
/// processing options in canonical form. The short grammar's `size/contain` is `rs:fit:size:size` and `size/cover`
/// `rs:fill:size:size` (centre gravity, never enlarged); it differs from an imgproxy URL only in its default format
/// (JPEG, or PNG for a source with alpha, where imgproxy keeps the source's format). One render path, one store
/// and one memory key follow from it; a short-grammar `contain` of a ladder size is stored in the source's entry
/// (`ladderSize(in:)`), everything else as a variant in `variants/`.
public struct Rendition: Sendable, Hashable {
    public let processing: CanonicalOptions
    /// The answer's format when neither the request nor the options name one.
    package let defaultFormat: DefaultFormat
    /// The short grammar's size and fit, when this came from it.
    package let thumbnail: ShortThumbnail?
    /// One spelling per image: the options' canonical form, and the default format when it is not imgproxy's. Memory
    /// keys and variant names are made from it.
    package let canonical: String
    /// The options' canonical form without their format, for keys of an answer whose format is named (`key`).
    private let canonicalWithoutFormat: String

    package enum DefaultFormat: String, Sendable, Hashable {
        /// imgproxy's: the source's format when it can be written, else PNG.
        case source
        /// The short grammar's: JPEG, or PNG when the source has alpha.
        case jpegUnlessAlpha
    }

    /// A thumbnail of the short grammar: a longest side (`contain`) or a centre square (`cover`).
    package struct ShortThumbnail: Sendable, Hashable {
        package let size: Int
        package let fit: FitMode
    }

    /// An image described by imgproxy's processing options.
    public static func processed(_ processing: CanonicalOptions) -> Rendition {
        Rendition(processing: processing, defaultFormat: .source, thumbnail: nil)
    }

    /// The short grammar's thumbnail of longest side (or square side) `size`, never enlarged (but an SVG, drawn at it: `ProcessingPlan.vector`).
    public static func thumbnail(size: Int, fit: FitMode = .contain) -> Rendition {
        let thumbnail = ShortThumbnail(size: size, fit: fit)
        if let known = shortGrammar.withLock({ $0[thumbnail] }) { return known }
        var options = ProcessingOptions()
        options.geometry.resizingType = fit == .cover ? .fill : .fit
        (options.geometry.width, options.geometry.height) = (size, size)
        let made = Rendition(processing: CanonicalOptions(options), defaultFormat: .jpegUnlessAlpha, thumbnail: thumbnail)
        shortGrammar.withLock { if $0.count < 4096 { $0[thumbnail] = made } }
        return made
    }

    /// The short grammar's descriptions made so far, by size and fit: the canonical form is worked out once per size,
    /// not per request (it was 7 % of the CPU of a `warm` that found every source fresh).
    private static let shortGrammar = Locked<[ShortThumbnail: Rendition]>([:])

    private init(processing: CanonicalOptions, defaultFormat: DefaultFormat, thumbnail: ShortThumbnail?) {
        (self.processing, self.defaultFormat, self.thumbnail) = (processing, defaultFormat, thumbnail)
        canonical = defaultFormat == .source ? processing.canonical : processing.canonical + "|" + defaultFormat.rawValue
        var formatless = processing.options
        formatless.format = nil
        canonicalWithoutFormat = formatless.format == processing.options.format ? processing.canonical : formatless.canonical
    }

    package var options: ProcessingOptions { processing.options }

    /// The ladder size this rendition is stored at in its source's entry: a short-grammar `contain` of a size on
    /// `ladder`. Nil: stored as a variant.
    func ladderSize(in ladder: SizeLadder) -> Int? {
        guard let thumbnail, thumbnail.fit == .contain, ladder.valueIndex(of: thumbnail.size) != nil else { return nil }
        return thumbnail.size
    }

    /// The format the answer is written in (`ProcessingOptions.outputFormat(for:source:defaults:limits:)`, the one
    /// rule): `request`'s, else this description's default for the source: imgproxy's `preferred` formats, or the
    /// short grammar's JPEG unless alpha. Decided from what the source's header said when it was fetched.
    func outputFormat(_ request: FormatRequest, original: CacheMetadata.Original, preferred: PreferredFormats,
                      limits: RenderLimits) -> FormatDecision {
        let defaults: DefaultOutputFormat = switch defaultFormat {
        case .source: .preferred(preferred)
        case .jpegUnlessAlpha: .jpegUnlessAlpha
        }
        return options.outputFormat(for: request, source: original.info, defaults: defaults, limits: limits)
    }

    /// Whether the answer is the source itself, not a render (`ProcessingOptions.passesThrough`: an SVG asked as
    /// SVG, or with no format named; a format from `Accept` is not named). The short grammar's thumbnail with no
    /// format named is always drawn.
    func passesThrough(named: ImageFormat?, original: CacheMetadata.Original, alwaysRasterize: Bool) -> Bool {
        if defaultFormat == .jpegUnlessAlpha, (named ?? options.format) == nil { return false }
        return options.passesThrough(asked: named, source: ImageFormat(rawValue: original.format), alwaysRasterize: alwaysRasterize)
    }

    /// The part of a memory-cache key after the source's key: one spelling per image (`canonical`), so two
    /// spellings of one processed image share one render. The formats taken from `Accept` (`~`) make a key of
    /// their own: which one answers depends on the source (an animation passes AVIF over), and a preferred one's
    /// answer may be the fallback format (`FormatFallback`), which a request naming the format must never get.
    func memoryKeySuffix(_ request: FormatRequest) -> String {
        // The options' own format when none is named separately, so both spellings share one key.
        let format = request.named ?? options.format
        let accepted = request.accepted.isEmpty ? "" : "~" + request.accepted.map(\.rawValue).joined(separator: ",")
        return "p/\(key(format: format, negotiated: format == nil && !request.accepted.isEmpty))/\(format?.rawValue ?? "auto")\(accepted)"
    }

    /// The description's part of a key for an answer in `format`: with a format named (not preferred from `Accept`) neither the
    /// default format nor where the format was named plays a part, so the short grammar's `256/cover.jpg` and
    /// imgproxy's `rs:fill:256:256/f:jpg` are one image, rendered and stored once.
    func key(format: ImageFormat?, negotiated: Bool) -> String {
        format != nil && !negotiated ? canonicalWithoutFormat : canonical
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.canonical == rhs.canonical }
    public func hash(into hasher: inout Hasher) { hasher.combine(canonical) }
}
