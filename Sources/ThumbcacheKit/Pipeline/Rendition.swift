import ImageDecode
import Processing

/// What is made of a source: a thumbnail of the short grammar (a longest side or a centre square, kept on the
/// disk ladder when its size is a rung), or an image described by imgproxy's processing options (kept on disk as
/// a variant of its source, `VariantStore`). The server's check produces one per request; the pipeline's
/// `memoryHit`, `diskHit` and `result` take it, so both grammars go through one request path.
public enum Rendition: Sendable, Hashable {
    case thumbnail(size: Int, fit: FitMode)
    case processed(CanonicalOptions)

    /// The part of a memory-cache key after the source's key: one spelling per image (`canonical`), so two
    /// spellings of one processed image share one render. A negotiated format (`~`) is a key of its own: its
    /// answer may be the fallback format (`FormatFallback`), which a request naming the format must never get.
    func memoryKeySuffix(format: ImageFormat?, negotiated: Bool = false) -> String {
        let negotiation = negotiated ? "~" : ""
        return switch self {
        case let .thumbnail(size, fit): "\(size)\(fit == .cover ? "c" : "")/\(format?.rawValue ?? "auto")\(negotiation)"
        // The options' own format when none is given separately, so both spellings share one key.
        case let .processed(processing):
            "p/\(processing.canonical)/\((format ?? processing.options.format)?.rawValue ?? "auto")\(negotiation)"
        }
    }
}
