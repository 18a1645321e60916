import ArgumentParser
import ImageDecode
import ThumbcacheKit

/// `--format-quality` and the metadata defaults, shared by the commands that encode images: serve, get, warm and
/// thumbnail.
struct EncodeOptions: ParsableArguments {
    @Option(name: .customLong("strip-metadata"), help: ArgumentHelp(EnvironmentFallback.help(
        "true: outputs carry no EXIF or XMP of the source (false: they do, orientation reset to 1 once applied), as imgproxy's IMGPROXY_STRIP_METADATA; a URL's sm: wins (default: true).",
        flag: "strip-metadata"), valueName: "bool"))
    var stripMetadata: Bool?
    @Option(name: .customLong("keep-copyright"), help: ArgumentHelp(EnvironmentFallback.help(
        "With metadata stripped, keep the EXIF Copyright and Artist, as IMGPROXY_KEEP_COPYRIGHT; a URL's kcr: wins (default: true).",
        flag: "keep-copyright"), valueName: "bool"))
    var keepCopyright: Bool?
    @Option(name: .customLong("strip-color-profile"), help: ArgumentHelp(EnvironmentFallback.help(
        "true: outputs are converted to sRGB without a profile (false: an RGB or grey source keeps its ICC profile and its values), as IMGPROXY_STRIP_COLOR_PROFILE; a URL's scp: wins (default: true).",
        flag: "strip-color-profile"), valueName: "bool"))
    var stripColorProfile: Bool?

    @Option(name: .customLong("format-quality"), help: ArgumentHelp(EnvironmentFallback.help(
        "Default quality of a format, FORMAT=QUALITY or a comma list of them as imgproxy's IMGPROXY_FORMAT_QUALITY (e.g. avif=60,webp=75; repeatable). A URL's q:/fq: still wins (default: \(Self.defaults)).",
        flag: "format-quality"), valueName: "format=quality"))
    var formatQuality: [String] = []

    static var defaults: String {
        // PNG is lossless: no quality.
        ImageFormat.encodable.filter { $0 != .png }.map { "\($0.rawValue)=\(ImageEncoder.defaultQuality(for: $0))" }
            .joined(separator: ",")
    }

    /// The three metadata flags, else their `THUMBCACHE_` variables, over imgproxy's defaults.
    func metadataPolicy() throws -> MetadataPolicy {
        let defaults = MetadataPolicy()
        return MetadataPolicy(
            stripMetadata: try EnvironmentFallback.value(stripMetadata, flag: "strip-metadata") ?? defaults.stripMetadata,
            keepCopyright: try EnvironmentFallback.value(keepCopyright, flag: "keep-copyright") ?? defaults.keepCopyright,
            stripColorProfile: try EnvironmentFallback.value(stripColorProfile, flag: "strip-color-profile") ?? defaults.stripColorProfile)
    }

    /// The flag's items, else `THUMBCACHE_FORMAT_QUALITY`'s, over the encoder's defaults; a bad item is a usage
    /// error naming it and where it came from.
    func qualities() throws -> FormatQualities {
        var qualities = FormatQualities()
        for item in try EnvironmentFallback.list(formatQuality, flag: "format-quality") {
            let parsed: FormatQualities
            do { parsed = try FormatQualities(parsing: [item.value]) } catch { throw item.failure(error.description) }
            for (format, quality) in parsed.overrides { qualities.set(quality, for: format) }
        }
        return qualities
    }
}
