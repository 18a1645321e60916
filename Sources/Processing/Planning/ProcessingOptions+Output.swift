import ImageDecode

/// The answer's format from the options, one rule for `serve`, `get` and `thumbnail` (its quality:
/// `quality(for:default:)`).
extension ProcessingOptions {
    /// imgproxy's `determineOutputFormat`, decided once the source's header is read (`source`; nil: unknown, as a
    /// still without alpha). A named format (`request.named`, else `format`) stands, unless `Accept` names an
    /// enforced one (`request.accepted`); with none named, the first format taken from `Accept`, else
    /// `defaults`. A format that saves no animation (AVIF, JPEG XL) is never taken from `Accept` for an answer
    /// that will be animated (`processesAsAnimation`): imgproxy's exception, so an animated GIF asked with
    /// `Accept: image/avif,image/webp` is an animated WebP, not AVIF's first frame.
    public func outputFormat(for request: FormatRequest, source: ImageInfo?, defaults: DefaultOutputFormat,
                             limits: RenderLimits) -> FormatDecision {
        let animated = source.map { processesAsAnimation($0, limits: limits) } ?? false
        let fromAccept = request.accepted.first { !animated || $0.savesAnimation }
        if let named = request.named ?? format {
            // SVG is never drawn, so nothing replaces it (imgproxy checks it first): a raster source asked as SVG is
            // refused whatever `Accept` says.
            return FormatDecision(format: named.isVector ? named : fromAccept ?? named)
        }
        let fallback = defaultFormat(source: source, animated: animated, defaults: defaults)
        guard let fromAccept else { return FormatDecision(format: fallback) }
        // An animation is weighed only against a fallback that keeps it too (`EncodeSettings.answer`): against a
        // still (the short grammar's JPEG) the animated answer stands, as if named.
        return FormatDecision(format: fromAccept, fallback: !animated || fallback.savesAnimation ? fallback : nil)
    }

    /// imgproxy's "processed as animated": the source has more than one frame, the server takes more than one
    /// (`RenderLimits.maxAnimationFrames`) and the URL does not say `da`. It is kept animated when its format saves
    /// animation too (`keepsAnimation`).
    public func processesAsAnimation(_ source: ImageInfo, limits: RenderLimits) -> Bool {
        !disableAnimation && limits.maxAnimationFrames > 1 && source.isAnimated
    }

    /// The answer's format with none named or taken from `Accept`.
    private func defaultFormat(source: ImageInfo?, animated: Bool, defaults: DefaultOutputFormat) -> ImageFormat {
        switch defaults {
        case .jpegUnlessAlpha:
            return source?.hasAlpha == true ? .png : .jpeg
        case .preferred(let preferred):
            if let source = source?.format, preferred.formats.contains(source) { return source }
            // imgproxy's `expectTransparency`: alpha that no background flattens, or padding or extend to fill.
            let transparency = background == nil && (source?.hasAlpha == true || !geometry.padding.isZero || geometry.extend)
            return preferred.formats.first { (!animated || $0.savesAnimation) && (!transparency || $0.savesAlpha) }
                ?? preferred.formats[0]
        }
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
