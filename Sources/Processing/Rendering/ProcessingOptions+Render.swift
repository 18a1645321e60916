import Foundation

/// From a plan to encoded bytes, with this request's effects, quality and size limit.
extension ProcessingOptions {
    /// The effects part of the options, for `PlanRenderer` (without the watermark: `renderEffects(watermark:)`).
    public var renderEffects: RenderEffects {
        RenderEffects(background: background, blur: blur, sharpen: sharpen, pixelate: pixelate)
    }

    /// The effects with the server's watermark drawn as `watermark` says; none without an image (imgproxy ignores
    /// `wm` when no watermark is configured) or at opacity 0.
    public func renderEffects(watermark image: WatermarkImage?) -> RenderEffects {
        var effects = renderEffects
        if let image, watermark.isVisible { effects.watermark = .init(image: image, options: watermark) }
        return effects
    }

    /// What `trim` keeps of the source, found by reading `input` (the original) once more (`TrimFinder`), for
    /// `plan(for:maxResultSide:trim:)`; nil when there is no `trim` or nothing to cut. Runs where the render runs
    /// (it costs a decode), after the header's plan has been checked.
    /// An animation kept animated (`keepsAnimation`) is never trimmed, as imgproxy turns `trim` off for them.
    public func trimBounds(of input: EncodedImage, limits: RenderLimits = RenderLimits(), animated: Bool = false,
                           cancellation: RenderCancellation? = nil) throws(ImageDecodeError) -> ProcessingPlan.Rect? {
        guard let trim, !animated else { return nil }
        return try TrimFinder.bounds(of: input, options: trim, limits: limits, cancellation: cancellation)
    }

    /// imgproxy's order: `q`, else `fq` for the format, else the server's default for it.
    public func quality(for format: ImageFormat, default defaultQuality: (ImageFormat) -> Int) -> Int {
        if quality > 0 { return quality }
        if let perFormat = formatQuality[format], perFormat > 0 { return perFormat }
        return defaultQuality(format)
    }

    /// `sm`, `kcr` and `scp` where the URL sets them, else the server's `defaults`.
    public func metadataPolicy(defaults: MetadataPolicy = MetadataPolicy()) -> MetadataPolicy {
        MetadataPolicy(stripMetadata: stripMetadata ?? defaults.stripMetadata,
                       keepCopyright: keepCopyright ?? defaults.keepCopyright,
                       stripColorProfile: stripColorProfile ?? defaults.stripColorProfile)
    }

    /// The encoder settings for `format` (quality resolved as `quality(for:default:)`, `max_bytes`, the metadata kept).
    public func encodeSettings(for format: ImageFormat, default defaultQuality: (ImageFormat) -> Int,
                               metadata: MetadataPolicy = MetadataPolicy()) -> EncodeSettings {
        EncodeSettings(format: format, quality: min(100, max(1, quality(for: format, default: defaultQuality))),
                       maxBytes: maxBytes, metadata: metadataPolicy(defaults: metadata))
    }

    /// imgproxy's rule for keeping an animation animated: it is processed as one (`processesAsAnimation`) and the
    /// answer's format saves animation (GIF, WebP). Otherwise the first frame is rendered, as a still.
    public func keepsAnimation(of source: ImageInfo, in format: ImageFormat, limits: RenderLimits) -> Bool {
        processesAsAnimation(source, limits: limits) && format.savesAnimation
    }

    /// The memory the render of `plan` will reserve, from `input`'s header: an animation's (one frame's render and
    /// the writers of `format` and of the `fallback`, fed at once) when `keepsAnimation`, else a still's (with the
    /// encoder of `format` or of the `fallback` also written, whichever holds more), and with `trim` the larger of
    /// that and the trim scan's (`TrimFinder`).
    public func workingMemory(of input: EncodedImage, plan: ProcessingPlan, sourceInfo: ImageInfo, format: ImageFormat,
                              fallback: ImageFormat? = nil, limits: RenderLimits,
                              watermark: WatermarkImage? = nil) throws(ImageDecodeError) -> Int {
        if keepsAnimation(of: sourceInfo, in: format, limits: limits) {
            return try PlanRenderer().workingMemory(forAnimation: input, plan: plan, effects: renderEffects(watermark: watermark),
                                                    autoRotate: autoRotate, limits: limits,
                                                    formats: EncodeSettings.animationFormats(format, fallback: fallback))
        }
        let render = try PlanRenderer().workingMemory(for: input, plan: plan, effects: renderEffects(watermark: watermark),
                                                      autoRotate: autoRotate, limits: limits,
                                                      formats: [format] + (fallback.map { [$0] } ?? []))
        guard trim != nil else { return render }
        return max(render, try TrimFinder.workingMemory(for: input, limits: limits))
    }

    /// Renders `plan` (from `plan(for:maxResultSide:)`, which refuses results that are too large) from `input`,
    /// the original or a smaller stored copy of it (see `PlanRenderer.render`), and encodes it as `format`.
    /// `sourceInfo` is the original's header, carried into the answer. `fallback`: `format` was negotiated, and
    /// this format (what the request answers without negotiation) is answered instead when it is smaller
    /// (`FormatFallback`).
    /// `metadataDefaults`: the server's `sm`/`kcr`/`scp`; a profile kept (`scp:0`) leaves the pixels in its space.
    /// Once `cancellation` is set, it stops at the render's next row or stage, or before an encode.
    public func render(_ input: EncodedImage, plan: ProcessingPlan, sourceInfo: ImageInfo, format: ImageFormat,
                       defaultQuality: (ImageFormat) -> Int, fallback: ImageFormat? = nil, limits: RenderLimits = RenderLimits(),
                       convertToSRGB: Bool = true, metadataDefaults: MetadataPolicy = MetadataPolicy(),
                       watermark: WatermarkImage? = nil,
                       cancellation: RenderCancellation? = nil) throws(ImageDecodeError) -> Thumbnail {
        if keepsAnimation(of: sourceInfo, in: format, limits: limits) {
            // Each frame goes to the encoders as it is rendered (`EncodeSettings.answerAnimation`).
            let effects = renderEffects(watermark: watermark)
            return try encodeSettings(for: format, default: defaultQuality, metadata: metadataDefaults)
                .answerAnimation(sourceInfo: sourceInfo,
                                 fallback: fallback.map { encodeSettings(for: $0, default: defaultQuality, metadata: metadataDefaults) },
                                 cancellation: cancellation) { (writers) throws(ImageDecodeError) in
                    try PlanRenderer().renderAnimation(from: input, plan: plan, effects: effects, autoRotate: autoRotate,
                                                       limits: limits, cancellation: cancellation, into: writers)
                }
        }
        let keepsProfile = metadataPolicy(defaults: metadataDefaults).keepsProfile(of: sourceInfo)
        let image = try PlanRenderer().render(from: input, plan: plan, effects: renderEffects(watermark: watermark), autoRotate: autoRotate,
                                              limits: limits, convertToSRGB: convertToSRGB && !keepsProfile,
                                              cancellation: cancellation)
        return try encodeSettings(for: format, default: defaultQuality, metadata: metadataDefaults)
            .answer(image, sourceInfo: sourceInfo,
                    fallback: fallback.map { encodeSettings(for: $0, default: defaultQuality, metadata: metadataDefaults) },
                    autoRotated: autoRotate, cancellation: cancellation)
    }
}
