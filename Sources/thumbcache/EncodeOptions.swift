import ArgumentParser
import ImageDecode
import ThumbcacheKit

/// `--format-quality`, shared by the commands that encode images: serve, get, warm and thumbnail.
struct EncodeOptions: ParsableArguments {
    @Option(name: .customLong("format-quality"), help: ArgumentHelp(EnvironmentFallback.help(
        "Default quality of a format, FORMAT=QUALITY or a comma list of them as imgproxy's IMGPROXY_FORMAT_QUALITY (e.g. avif=60,webp=75; repeatable). A URL's q:/fq: still wins (default: \(Self.defaults)).",
        flag: "format-quality"), valueName: "format=quality"))
    var formatQuality: [String] = []

    static var defaults: String {
        [ImageFormat.jpeg, .webp, .avif].map { "\($0.rawValue)=\(ImageEncoder.defaultQuality(for: $0))" }.joined(separator: ",")
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
