/// The format an answer is written in (`ProcessingOptions.outputFormat(for:source:defaults:limits:)`).
public struct FormatDecision: Sendable, Hashable {
    public let format: ImageFormat
    /// Set when `format` was preferred from `Accept` (not named, not enforced): the format the answer has without
    /// it, answered instead when smaller (`FormatFallback`).
    public let fallback: ImageFormat?

    public init(format: ImageFormat, fallback: ImageFormat? = nil) {
        (self.format, self.fallback) = (format, fallback == format ? nil : fallback)
    }
}
