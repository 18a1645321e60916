import Foundation

/// From a plan to encoded bytes, with this request's effects, quality and size limit.
extension ProcessingOptions {
    /// The effects part of the options, for `PlanRenderer`.
    public var renderEffects: RenderEffects {
        RenderEffects(background: background, blur: blur, sharpen: sharpen, pixelate: pixelate)
    }

    /// imgproxy's order: `q`, else `fq` for the format, else the server's default for it.
    public func quality(for format: ImageFormat, default defaultQuality: (ImageFormat) -> Int) -> Int {
        if quality > 0 { return quality }
        if let perFormat = formatQuality[format], perFormat > 0 { return perFormat }
        return defaultQuality(format)
    }

    /// The encoder settings for `format` (quality resolved as `quality(for:default:)`, `max_bytes`).
    public func encodeSettings(for format: ImageFormat, default defaultQuality: (ImageFormat) -> Int) -> EncodeSettings {
        EncodeSettings(format: format, quality: min(100, max(1, quality(for: format, default: defaultQuality))),
                       maxBytes: maxBytes)
    }

    /// Renders `plan` (from `plan(for:maxResultSide:)`, which refuses results that are too large) from `input`,
    /// the original or a smaller stored copy of it (see `PlanRenderer.render`), and encodes it as `format`.
    /// `sourceInfo` is the original's header, carried into the answer. `fallback`: `format` was negotiated, and
    /// this format (what the request answers without negotiation) is answered instead when it is smaller
    /// (`FormatFallback`).
    /// Once `cancellation` is set, it stops at the render's next row or stage, or before an encode.
    public func render(_ input: EncodedImage, plan: ProcessingPlan, sourceInfo: ImageInfo, format: ImageFormat,
                       defaultQuality: (ImageFormat) -> Int, fallback: ImageFormat? = nil, limits: RenderLimits = RenderLimits(),
                       convertToSRGB: Bool = true, cancellation: RenderCancellation? = nil) throws(ImageDecodeError) -> Thumbnail {
        let image = try PlanRenderer().render(from: input, plan: plan, effects: renderEffects, autoRotate: autoRotate,
                                              limits: limits, convertToSRGB: convertToSRGB, cancellation: cancellation)
        return try encodeSettings(for: format, default: defaultQuality)
            .answer(image, sourceInfo: sourceInfo, fallback: fallback.map { encodeSettings(for: $0, default: defaultQuality) },
                    cancellation: cancellation)
    }
}
