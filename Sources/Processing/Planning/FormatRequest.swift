/// What a request says about its answer's format before the source is read: the format it names, and the formats
/// the server takes from its `Accept`. `ProcessingOptions.outputFormat(for:source:defaults:limits:)` decides the
/// format from it once the source's header is known (`FormatDecision`).
public struct FormatRequest: Sendable, Hashable {
    /// An extension, `f:`, the short grammar's `.<format>`, `--format`; nil: none (the options' own `format` still
    /// counts).
    public var named: ImageFormat?
    /// The formats `Accept` names that the server takes from it, in the server's order (JPEG XL, AVIF, WebP). With
    /// a format named they replace it (imgproxy's `IMGPROXY_ENFORCE_*`); without, they are preferred to the default
    /// format (imgproxy's `IMGPROXY_AUTO_*`, `FormatFallback` guarding the choice). Either way a format that saves
    /// no animation is passed over for an animated answer (imgproxy's rule).
    public var accepted: [ImageFormat]

    public init(named: ImageFormat? = nil, accepted: [ImageFormat] = []) {
        (self.named, self.accepted) = (named, accepted)
    }
}
