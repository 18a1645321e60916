@_exported import ImageDecode

/// One request's processing options, imgproxy's meaning and defaults (docs/processing.md). Parse them from
/// `name:arg:arg` segments with `init(segments:presets:)`; `canonical` names the image they describe;
/// `plan(sourceWidth:sourceHeight:maxResultSide:)` works out its geometry.
public struct ProcessingOptions: Sendable, Hashable {
    /// Size, crop, gravity, extend, padding and rotation: everything the planner needs.
    public var geometry = GeometryOptions()
    /// Apply the EXIF orientation (imgproxy's default: on).
    public var autoRotate = true
    /// Fills transparency, extend and padding; nil keeps transparency (and fills with white where there is none).
    public var background: RGBColor?
    /// The largest `blur` and `sharpen` sigma a URL may ask for. Their mask grows with sigma (about 3.6 and 4.3
    /// taps a unit, per pixel and pass), so unbounded it let one URL cost minutes of CPU; at 100 a filter costs a
    /// few hundred taps a pixel, and a larger sigma blurs a thumbnail no further that anyone would see.
    public static let maxSigma = 100.0
    /// Gaussian blur sigma; 0 is none.
    public var blur = 0.0
    /// Sharpen sigma; 0 is none.
    public var sharpen = 0.0
    /// Block size in pixels; 0 and 1 are none.
    public var pixelate = 0
    /// imgproxy's `trim`, found on the source before the plan (`TrimFinder`); nil: none.
    public var trim: TrimOptions?
    /// imgproxy's `watermark`: the server's watermark image over the result; opacity 0 (the default) is none.
    public var watermark = WatermarkOptions()
    /// Encoder quality 1…100; 0 leaves it to `formatQuality` or the server's default for the format.
    public var quality = 0
    public var formatQuality: [ImageFormat: Int] = [:]
    /// Lower the quality until the result fits; 0 is no limit.
    public var maxBytes = 0
    /// nil: the source's format when it can be written, else negotiated.
    public var format: ImageFormat?
    /// nil: the server's setting.
    public var stripMetadata: Bool?
    public var keepCopyright: Bool?
    public var stripColorProfile: Bool?
    /// Answer the source as it is when its format is one of these.
    public var skipProcessing: Set<ImageFormat> = []
    /// Stream the source unprocessed.
    public var raw = false
    /// imgproxy's `disable_animation`: an animated source gives its first frame in every format.
    public var disableAnimation = false
    /// `max_src_resolution` in pixels (the URL gives megapixels): a larger source is refused. nil: the server's limit
    /// alone; a URL's value never raises it (`SourceLimits`).
    public var maxSourceResolution: Int?
    /// `max_src_file_size` in bytes: a larger source is refused; 0 or nil: the server's limit alone.
    public var maxSourceFileSize: Int?
    /// `max_animation_frames` (≥ 1): at most this many frames of an animation are rendered; it lowers the server's
    /// `--max-animation-frames`, never raises it (`SourceLimits`). 1: the first frame only.
    public var maxAnimationFrames: Int?
    /// `max_animation_frame_resolution` in pixels (the URL gives megapixels): an animation kept animated whose frames
    /// are larger is refused. It adds to the server's limits, never relaxes them (`SourceLimits`).
    public var maxAnimationFrameResolution: Int?
    // The rest changes the answer's headers or the URL, never the pixels (left out of `canonical`).
    public var cacheBuster: String?
    /// Unix time after which the URL is refused (`checkNotExpired(now:)`).
    public var expires: Int64?
    public var filename: String?
    /// The longest `filename` a URL may give, in UTF-8 bytes: what file systems allow a name (NAME_MAX), so any
    /// longer one would be cut where it is saved, and a bound on what a URL puts into a header.
    public static let maxFilenameBytes = 255
    public var returnAttachment = false
    /// The presets applied, in order (the `default` preset included).
    public var usedPresets: [String] = []

    public init() {}

    /// Refuses the options once `expires` has passed (imgproxy: 0 or negative never expires).
    public func checkNotExpired(now: Int64) throws(ProcessingError) {
        if let expires, expires > 0, expires < now { throw .expired(at: expires) }
    }
}

extension ProcessingOptions {
    /// The security options these options set (`OptionName.securityOptions`, in that order).
    public var securityOptionsGiven: [OptionName] {
        OptionName.securityOptions.filter { option in
            switch option {
            case .maxResultDimension: geometry.maxResultDimension != nil
            case .maxSourceResolution: maxSourceResolution != nil
            case .maxSourceFileSize: maxSourceFileSize != nil
            case .maxAnimationFrames: maxAnimationFrames != nil
            case .maxAnimationFrameResolution: maxAnimationFrameResolution != nil
            default: false
            }
        }
    }
}
