/// What the header says about an image, read without decoding any pixels.
public struct ImageInfo: Sendable, Equatable {
    public var format: ImageFormat
    /// Dimensions as stored in the file, before EXIF orientation is applied.
    public var width: Int
    public var height: Int
    public var orientation: Orientation
    public var hasAlpha: Bool
    public var isProgressive: Bool
    /// The description of the embedded ICC profile (e.g. "Adobe RGB (1998)"), nil when there is none
    /// (or LittleCMS cannot read it, in which case it is ignored).
    public var colorProfile: String?
    /// Frames in an animation or image sequence (WebP, AVIF from the header; GIF counted from its block structure,
    /// without decoding), or a TIFF's pages (its reduced-resolution levels not counted; only the first is decoded);
    /// nil for formats that have none (JPEG, PNG, BMP, ICO).
    public var frameCount: Int?
    /// One grey channel as stored (grey JPEG, grey or grey+alpha PNG at any bit depth, 4:0:0 AVIF): the rows are
    /// still delivered as RGB(A), and the encoders write one channel again where the format can (`ImageEncoder`).
    public var isGrey: Bool
    /// EXIF, XMP and ICC profile as stored, for `MetadataPolicy` to write into an output.
    public var metadata: ImageMetadata

    public init(format: ImageFormat, width: Int, height: Int, orientation: Orientation = .identity,
                hasAlpha: Bool = false, isProgressive: Bool = false, colorProfile: String? = nil, frameCount: Int? = nil,
                isGrey: Bool = false, metadata: ImageMetadata = ImageMetadata()) {
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
        self.hasAlpha = hasAlpha
        self.isProgressive = isProgressive
        self.colorProfile = colorProfile
        self.frameCount = frameCount
        self.isGrey = isGrey
        self.metadata = metadata
    }

    /// More than one frame in a format whose frames `PlanRenderer.renderAnimation` reads.
    public var isAnimated: Bool { (frameCount ?? 1) > 1 && AnimationDecoder.reads(format) }

    /// Dimensions as displayed, after EXIF orientation.
    public var orientedWidth: Int { orientation.swapsAxes ? height : width }
    public var orientedHeight: Int { orientation.swapsAxes ? width : height }
}
