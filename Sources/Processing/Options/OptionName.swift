/// The processing options thumbcache implements, with every spelling imgproxy accepts for them, and the
/// names of imgproxy's options it refuses as not supported (so they are told apart from typos).
public enum OptionName: String, Sendable, CaseIterable {
    case resize, size, resizingType, width, height, minWidth, minHeight, zoom, dpr, enlarge, extend
    case extendAspectRatio, gravity, crop, padding, autoRotate, rotate, background, blur, sharpen, pixelate
    case quality, formatQuality, maxBytes, format, stripMetadata, keepCopyright, stripColorProfile
    case skipProcessing, raw, cacheBuster, expires, filename, returnAttachment, preset
    case maxResultDimension, maxSourceResolution, maxSourceFileSize, maxAnimationFrames, maxAnimationFrameResolution
    case flip, trim, watermark, disableAnimation

    /// imgproxy's spellings: the long name first, the short one (used by the canonical form) last.
    public var spellings: [String] {
        switch self {
        case .resize: ["resize", "rs"]
        case .size: ["size", "s"]
        case .resizingType: ["resizing_type", "rt"]
        case .width: ["width", "w"]
        case .height: ["height", "h"]
        case .minWidth: ["min-width", "mw"]
        case .minHeight: ["min-height", "mh"]
        case .zoom: ["zoom", "z"]
        case .dpr: ["dpr"]
        case .enlarge: ["enlarge", "el"]
        case .extend: ["extend", "ex"]
        case .extendAspectRatio: ["extend_aspect_ratio", "extend_ar", "exar"]
        case .gravity: ["gravity", "g"]
        case .crop: ["crop", "c"]
        case .padding: ["padding", "pd"]
        case .autoRotate: ["auto_rotate", "ar"]
        case .rotate: ["rotate", "rot"]
        case .background: ["background", "bg"]
        case .blur: ["blur", "bl"]
        case .sharpen: ["sharpen", "sh"]
        case .pixelate: ["pixelate", "pix"]
        case .quality: ["quality", "q"]
        case .formatQuality: ["format_quality", "fq"]
        case .maxBytes: ["max_bytes", "mb"]
        case .format: ["format", "ext", "f"]
        case .stripMetadata: ["strip_metadata", "sm"]
        case .keepCopyright: ["keep_copyright", "kcr"]
        case .stripColorProfile: ["strip_color_profile", "scp"]
        case .skipProcessing: ["skip_processing", "skp"]
        case .raw: ["raw"]
        case .cacheBuster: ["cachebuster", "cb"]
        case .expires: ["expires", "exp"]
        case .filename: ["filename", "fn"]
        case .returnAttachment: ["return_attachment", "att"]
        case .preset: ["preset", "pr"]
        case .maxResultDimension: ["max_result_dimension", "mrd"]
        case .maxSourceResolution: ["max_src_resolution", "msr"]
        case .maxSourceFileSize: ["max_src_file_size", "msfs"]
        case .maxAnimationFrames: ["max_animation_frames", "maf"]
        case .maxAnimationFrameResolution: ["max_animation_frame_resolution", "mafr"]
        case .flip: ["flip", "fl"]
        case .trim: ["trim", "t"]
        case .watermark: ["watermark", "wm"]
        case .disableAnimation: ["disable_animation", "da"]
        }
    }

    public var shortName: String { spellings[spellings.count - 1] }

    /// imgproxy's security options: a URL may name them only where the server allows it
    /// (`IMGPROXY_ALLOW_SECURITY_OPTIONS`, `serve --allow-security-options`).
    public var isSecurityOption: Bool { Self.securityOptions.contains(self) }

    /// The one list of them (`ProcessingOptions.securityOptionsGiven` reads their fields).
    static let securityOptions: [OptionName] = [.maxResultDimension, .maxSourceResolution, .maxSourceFileSize,
                                                 .maxAnimationFrames, .maxAnimationFrameResolution]

    private static let bySpelling: [String: OptionName] = Dictionary(
        uniqueKeysWithValues: allCases.flatMap { name in name.spellings.map { ($0, name) } })

    /// nil for a name thumbcache does not implement.
    public init?(spelling: String) {
        guard let name = Self.bySpelling[spelling] else { return nil }
        self = name
    }

    /// imgproxy's other option names (its documentation, open-source and Pro): Pro watermarks (URL, text, size),
    /// colour adjustments and filters, object detection, video and multi-page sources, encoder tuning,
    /// security overrides and cache controls. Refused with "not supported", not "unknown".
    public static let unsupported: Set<String> = [
        "resizing_algorithm", "ra", "objects_position", "obj_pos", "op", "crop_aspect_ratio", "crop_ar", "car",
        "background_alpha", "bga", "adjust", "a", "brightness", "br", "contrast", "co",
        "saturation", "sa", "monochrome", "mc", "duotone", "dt", "unsharp_masking", "ush", "blur_areas", "ba",
        "progressive_blur", "pbl", "blur_detections", "bd", "draw_detections", "dd", "crop_objects", "c_obj",
        "colorize", "col", "gradient", "gr", "watermark_url", "wmu", "watermark_text", "wmt",
        "watermark_size", "wms", "watermark_rotate", "wm_rot", "wmr", "watermark_shadow", "wmsh", "style", "st",
        "dpi", "preserve_hdr", "ph", "color_profile", "cp", "icc", "enforce_thumbnail", "eth", "autoquality", "aq",
        "jpeg_options", "jpgo", "png_options", "pngo", "webp_options", "webpo", "avif_options", "avifo",
        "page", "pg", "pages", "pgs", "video_thumbnail_second", "vts",
        "video_thumbnail_keyframes", "vtk", "video_thumbnail_tile", "vtt", "video_thumbnail_animation", "vta",
        "fallback_image_url", "fiu", "bypass_cache", "bc", "cache_tags", "ct", "hashsum", "hs",
    ]
}
