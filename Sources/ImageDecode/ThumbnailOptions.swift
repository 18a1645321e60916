/// How the thumbnail box is filled.
public enum FitMode: String, Sendable, CaseIterable {
    /// Scale to fit inside size x size, keeping the aspect ratio (vipsthumbnail's default).
    case contain
    /// Scale so the shorter side is `size`, then centre-crop to size x size.
    case cover
}

/// What thumbnail to make.
public struct ThumbnailRequest: Sendable, Equatable {
    public static let maxSize = 8192
    /// Room for a baseline or progressive 4:2:0 JPEG of 50 megapixels (the default pixel budget) and an
    /// interlaced PNG of about 8000x8000 RGB; a progressive 4:4:4 or CMYK JPEG of 7000x7000 needs more.
    public static let defaultMaxDecodeMemory = 256 << 20

    /// Longest side for `contain`; side of the square for `cover`.
    public var size: Int
    public var fit: FitMode
    /// nil chooses JPEG for opaque sources and PNG for sources with transparency. GIF cannot be written.
    public var format: ImageFormat?
    /// Encoder quality, 1-100, for JPEG, WebP and AVIF (PNG is lossless and ignores it). The init's default is
    /// `ImageEncoder.defaultQuality(for:)` of `format` (JPEG's when nil).
    public var quality: Int
    @available(*, deprecated, renamed: "quality", message: "quality now applies to WebP and AVIF as well")
    public var jpegQuality: Int {
        get { quality }
        set { quality = newValue }
    }
    /// Off by default: a source smaller than the box is re-encoded and oriented, not enlarged (but an SVG is drawn at
    /// the box's size, imgproxy's rule for vectors: `ProcessingPlan.vector`).
    public var allowUpscale: Bool
    /// Sources with more pixels than this are refused after reading only the header.
    public var maxPixels: Int
    /// Memory one decode may use (the decoder's buffers, the resizer's, the output; see
    /// `Thumbnailer.workingMemory`): a source needing more is refused after reading only the header.
    public var maxDecodeMemory: Int
    /// On by default: a source with an embedded ICC profile (Adobe RGB, Display P3, a CMYK press
    /// profile) is converted to sRGB, and the output carries no profile, like libvips' thumbnails.
    /// Off keeps the stored values, which viewers then show as sRGB (colours shift).
    public var convertToSRGB: Bool
    /// Where `cover` cuts its square: nil (the default) keeps the centre; a strategy looks at the resized
    /// image for the interesting part (`SmartCrop`). `contain` crops nothing and ignores it.
    public var smartCrop: SmartCrop.Strategy?
    /// Set when `format` was negotiated (a server's `Accept`): the fallback format is encoded from the same pixels
    /// too, and answered instead when the negotiated encoding is larger (`FormatFallback`). nil: `format` it is.
    public var fallback: FormatFallback?
    /// What the thumbnail keeps of the source's metadata (imgproxy's defaults: only the EXIF copyright, sRGB).
    public var metadata = MetadataPolicy()
    /// Threads the decode may use (`RenderLimits.decodeThreads`): 1 by default, as one render per core needs.
    public var decodeThreads = 1

    public init(size: Int, fit: FitMode = .contain, format: ImageFormat? = nil,
                quality: Int? = nil,
                allowUpscale: Bool = false, maxPixels: Int = ImageDecoder.defaultMaxPixels,
                maxDecodeMemory: Int = defaultMaxDecodeMemory, convertToSRGB: Bool = true,
                smartCrop: SmartCrop.Strategy? = nil) {
        self.size = size
        self.fit = fit
        self.format = format
        self.quality = quality ?? ImageEncoder.defaultQuality(for: format ?? .jpeg)
        self.allowUpscale = allowUpscale
        self.maxPixels = maxPixels
        self.maxDecodeMemory = maxDecodeMemory
        self.convertToSRGB = convertToSRGB
        self.smartCrop = smartCrop
    }

    @available(*, deprecated, renamed: "init(size:fit:format:quality:allowUpscale:maxPixels:convertToSRGB:)")
    public init(size: Int, fit: FitMode = .contain, format: ImageFormat? = nil, jpegQuality: Int,
                allowUpscale: Bool = false, maxPixels: Int = ImageDecoder.defaultMaxPixels,
                convertToSRGB: Bool = true) {
        self.init(size: size, fit: fit, format: format, quality: jpegQuality, allowUpscale: allowUpscale,
                  maxPixels: maxPixels, convertToSRGB: convertToSRGB)
    }

    /// The thumbnail as a processing plan for a source with header `info`, so one renderer draws both grammars:
    /// `contain` is imgproxy's `fit` into a size × size box, `cover` its `fill` with centre gravity, or with the
    /// detecting gravity of `smartCrop` (`g:sm`, `g:entropy`), resolved on the resized upright image.
    func plan(for info: ImageInfo) -> ProcessingPlan {
        var geometry = GeometryOptions()
        geometry.resizingType = fit == .contain ? .fit : .fill
        (geometry.width, geometry.height) = (size, size)
        geometry.enlarge = allowUpscale
        if fit == .cover, let smartCrop {
            geometry.gravity = switch smartCrop {
            case .attention: .smart
            case .entropy: .entropy
            }
        }
        return ProcessingPlan(sourceWidth: info.orientedWidth, sourceHeight: info.orientedHeight, geometry: geometry,
                              vector: info.format.isVector)
    }

    /// The request's pixel, memory and thread limits, as the renderer takes them.
    var limits: RenderLimits {
        RenderLimits(maxPixels: maxPixels, maxDecodeMemory: maxDecodeMemory, decodeThreads: decodeThreads)
    }

    func validate() throws(ImageDecodeError) {
        guard (1...Self.maxSize).contains(size) else {
            throw .invalidRequest("size must be between 1 and \(Self.maxSize) pixels, got \(size)")
        }
        guard (1...100).contains(quality) else {
            throw .invalidRequest("quality must be between 1 and 100, got \(quality)")
        }
        if let format, !format.isEncodable { throw .invalidRequest(ImageEncoder.unwritable(format)) }
        guard maxPixels > 0 else { throw .invalidRequest("maxPixels must be positive, got \(maxPixels)") }
        guard maxDecodeMemory > 0 else { throw .invalidRequest("maxDecodeMemory must be positive, got \(maxDecodeMemory)") }
    }
}
