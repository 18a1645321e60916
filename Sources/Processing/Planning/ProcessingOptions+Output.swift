import ImageDecode

/// The answer's format from the options, one rule for `serve`, `get` and `thumbnail` (its quality:
/// `quality(for:default:)`).
extension ProcessingOptions {
    /// `asked` (an extension, `f:`, a negotiated format), else the source's format when it can be written, else
    /// PNG (a GIF's first frame).
    public func outputFormat(asked: ImageFormat?, source: ImageFormat?) -> ImageFormat {
        asked ?? format ?? source.flatMap { $0.isEncodable ? $0 : nil } ?? .png
    }

    /// Whether the answer is the source itself rather than a render (sanitised when it is an SVG): a vector source
    /// asked for in its own format, or in none unless `alwaysRasterize` (imgproxy's rule, with its
    /// `IMGPROXY_ALWAYS_RASTERIZE_SVG`). `asked` is a named format only: one negotiated from `Accept` does not
    /// count (imgproxy decides this before it looks at `Accept`).
    public func passesThrough(asked: ImageFormat?, source: ImageFormat?, alwaysRasterize: Bool) -> Bool {
        guard !raw, let source, source.isVector else { return false }
        let named = asked ?? format
        return named == source || (named == nil && !alwaysRasterize)
    }
}
