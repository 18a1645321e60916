import ImageDecode

/// The answer's format from the options, one rule for `serve`, `get` and `thumbnail` (its quality:
/// `quality(for:default:)`).
extension ProcessingOptions {
    /// `asked` (an extension, `f:`, a negotiated format), else the source's format when it can be written, else
    /// PNG (a GIF's first frame).
    public func outputFormat(asked: ImageFormat?, source: ImageFormat?) -> ImageFormat {
        asked ?? format ?? source.flatMap { $0.isEncodable ? $0 : nil } ?? .png
    }
}
