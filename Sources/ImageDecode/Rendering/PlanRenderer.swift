/// Renders a `ProcessingPlan` (imgproxy's geometry) and `RenderEffects` into pixels. Data flows one way:
/// decode only the rows and columns the result needs (with shrink-on-load) -> resize -> sRGB -> orient and
/// rotate and flip -> smart crop, if asked -> filters -> canvas (extend, padding) -> flatten onto the background ->
/// watermark. `trim` is found before the plan (`TrimFinder`) and read here as the plan's source rectangle.
/// Stateless and Sendable; every call owns its decoder, so calls may run concurrently.
public struct PlanRenderer: Sendable {
    public init() {}

    /// Renders `plan`, worked out against the original's upright size, from `input`: the original, or a smaller
    /// stored copy of it (a ladder thumbnail, already upright, without EXIF orientation). Coordinates are scaled by
    /// the input's size over the plan's source size, so the copy must keep the original's aspect ratio.
    /// `autoRotate` must be what the plan was made with (`ProcessingOptions.autoRotate`). A smart or entropy
    /// gravity (`plan.detection`) is resolved here with `SmartCrop`; a `crop` with one costs a second decode.
    /// Once `cancellation` is set the render stops at its next row, line or stage (`ImageDecodeError.cancelled`).
    public func render(from input: EncodedImage, plan: ProcessingPlan, effects: RenderEffects = RenderEffects(),
                       autoRotate: Bool = true, limits: RenderLimits = RenderLimits(), convertToSRGB: Bool = true,
                       cancellation: RenderCancellation? = nil) throws(ImageDecodeError) -> PixelBuffer {
        let reader = RegionReader(input: .encoded(input), transform: Orientation(plan.geometry), bounds: plan.trim,
                                  autoRotate: autoRotate, limits: limits, convertToSRGB: convertToSRGB, cancellation: cancellation)
        return try render(reader, plan: plan, effects: effects).image
    }

    /// The one render, of whatever `reader` reads (an image, or one frame of an animation). Returns the plan with
    /// any smart or entropy gravity resolved to the point it chose, so an animation's later frames reuse it.
    func render(_ reader: RegionReader, plan: ProcessingPlan,
                effects: RenderEffects) throws(ImageDecodeError) -> (image: PixelBuffer, plan: ProcessingPlan) {
        let cancellation = reader.cancellation
        var plan = plan
        if let detection = plan.detection, detection.stage == .sourceCrop {
            plan = try resolveOnSource(detection, plan: plan, reader: reader, effects: effects)
        }
        var image = try reader.read(Self.reading(plan), plan: plan,
                                    extra: { Self.outputMemory(plan, effects, source: $0) })
        try cancellation.check()
        if let detection = plan.detection {
            // Chosen on the scaled, upright image, as libvips crops after resizing and rotating.
            let origin = SmartCrop.origin(Self.strategy(detection.gravity), in: image,
                                          width: detection.cropWidth, height: detection.cropHeight)
            plan = plan.resolvingDetection(focusX: Self.focus(origin.x, detection.cropWidth, detection.imageWidth),
                                           focusY: Self.focus(origin.y, detection.cropHeight, detection.imageHeight))
            image = image.cropped(x: plan.resultCrop.x, y: plan.resultCrop.y,
                                  width: plan.resultCrop.width, height: plan.resultCrop.height)
        }
        image = try effects.applyFilters(to: image, cancellation: cancellation)
        try cancellation.check()
        image = CanvasPlacement.place(image, onWidth: plan.resultWidth, height: plan.resultHeight,
                                      atX: plan.padding.left + plan.canvas.image.x,
                                      y: plan.padding.top + plan.canvas.image.y, background: effects.background)
        if let background = effects.background, image.hasAlpha {
            image = image.flattened(background: (background.red, background.green, background.blue))
        }
        if let watermark = effects.watermark {
            try cancellation.check()
            WatermarkComposite.apply(watermark, to: &image, dprScale: plan.dprScale)
        }
        return (image, plan)
    }

    /// The memory `render` will use for this plan, estimated from the header alone (only the first blocks of a
    /// file are read): what a caller running several renders at once reserves for this one. `formats`: what the
    /// result is then encoded as, one after the other (an answer and its `Accept` fallback), when an encoder holds
    /// more than the result's copy (`ImageEncoder.workingMemory`, HEIC's x265): the largest counts against the same
    /// limit. Throws `overMemoryBudget` (or `tooLarge`) when `render` (and those encodes) would refuse the input.
    public func workingMemory(for input: EncodedImage, plan: ProcessingPlan, effects: RenderEffects = RenderEffects(),
                              autoRotate: Bool = true, limits: RenderLimits = RenderLimits(),
                              formats: [ImageFormat] = []) throws(ImageDecodeError) -> Int {
        let reader = RegionReader(input: .encoded(input), transform: Orientation(plan.geometry), bounds: plan.trim,
                                  autoRotate: autoRotate, limits: limits, convertToSRGB: true)
        let encoder = formats.map { ImageEncoder.workingMemory(for: $0, width: plan.resultWidth, height: plan.resultHeight) }.max() ?? 0
        return try reader.checkedWorkingMemory(Self.reading(plan), plan: plan,
                                               extra: { Self.outputMemory(plan, effects, source: $0) + encoder })
    }

    // MARK: Steps

    /// What to read: the result crop when it is known, so a small crop of a large image is the only part
    /// resized; the whole scaled crop when a detector must still look at it.
    static func reading(_ plan: ProcessingPlan) -> RegionReader.Reading {
        let crop = plan.sourceCrop
        // Scaled pixels per source pixel as the plan rounded them, so the result crop maps back exactly.
        let perX = Double(crop.width) / Double(plan.scaledWidth), perY = Double(crop.height) / Double(plan.scaledHeight)
        let kept = plan.detection == nil ? plan.resultCrop
            : ProcessingPlan.Rect(x: 0, y: 0, width: plan.scaledWidth, height: plan.scaledHeight)
        return .init(region: .init(x: Double(crop.x) + Double(kept.x) * perX, y: Double(crop.y) + Double(kept.y) * perY,
                                   width: Double(kept.width) * perX, height: Double(kept.height) * perY),
                     width: kept.width, height: kept.height)
    }

    /// A detector on the `crop` option's own gravity looks at the whole source: read it at the plan's scale
    /// (never above the source's), find the focus point, and place the crop there.
    private func resolveOnSource(_ detection: ProcessingPlan.Detection, plan: ProcessingPlan, reader: RegionReader,
                                 effects: RenderEffects) throws(ImageDecodeError) -> ProcessingPlan {
        let scale = min(1, plan.scaleX, plan.scaleY)
        let (width, height) = Self.sourceSearchSize(plan)
        let whole = RegionReader.Reading(region: .init(x: 0, y: 0, width: Double(plan.sourceWidth), height: Double(plan.sourceHeight)),
                                         width: width, height: height)
        let image = try reader.read(whole, plan: plan, extra: { Self.outputMemory(plan, effects, source: $0) })
        try reader.cancellation.check()
        let cropWidth = max(1, Int((Double(detection.cropWidth) * scale).rounded()))
        let cropHeight = max(1, Int((Double(detection.cropHeight) * scale).rounded()))
        let origin = SmartCrop.origin(Self.strategy(detection.gravity), in: image, width: cropWidth, height: cropHeight)
        return plan.resolvingDetection(focusX: Self.focus(origin.x, min(cropWidth, width), width),
                                       focusY: Self.focus(origin.y, min(cropHeight, height), height))
    }

    /// The size a detector on the `crop` option's own gravity searches: the whole source at the plan's scale, never
    /// above the source's (`RenderWork` costs the same search).
    static func sourceSearchSize(_ plan: ProcessingPlan) -> (width: Int, height: Int) {
        let scale = min(1, plan.scaleX, plan.scaleY)
        return (max(1, Int((Double(plan.sourceWidth) * scale).rounded())), max(1, Int((Double(plan.sourceHeight) * scale).rounded())))
    }

    /// The fraction `resolvingDetection` centres on to put a crop of `size` at `origin` (it centres with
    /// `round(outer × f) − size / 2`, so the centre is given on a whole pixel).
    static func focus(_ origin: Int, _ size: Int, _ outer: Int) -> Double {
        Double(origin + size / 2) / Double(outer)
    }

    static func strategy(_ gravity: Gravity) -> SmartCrop.Strategy {
        gravity == .entropy ? .entropy : .attention
    }

    /// Besides the read (the decoder, and the resizer with its image and that image's sRGB-converted and upright
    /// copies, or the one image read straight upright at full size: `RegionReader`), for a source of 3 channels (4
    /// with alpha): a detector's crop of the read image, the filters' float copy (and a blur line), the canvas
    /// only when the plan extends or pads and its flattened copy only with a background (4 bytes a pixel: a canvas
    /// may add alpha), the scaled watermark (composited in place), and the encoder's buffer of the result. Copies a
    /// plan does not make are not counted: a thumbnail reserves 13 bytes a pixel of RGB output, not 20 as when every
    /// plan was charged a canvas. A grey source's encoder also takes a grey copy of the result (at most 2 bytes a
    /// pixel, `PixelBuffer+Grey`).
    static func outputMemory(_ plan: ProcessingPlan, _ effects: RenderEffects, source: ImageInfo) -> Int {
        let channels = source.hasAlpha ? 4 : 3
        let kept = plan.resultCrop.width * plan.resultCrop.height
        let result = plan.resultWidth * plan.resultHeight
        let crop = plan.detection != nil ? kept * channels : 0
        let filters = effects.hasFilters ? kept * 4 * (MemoryLayout<Float>.size + 1) * 2 : 0
        let canvas = result != kept ? result * 4 : 0
        let flattened = effects.background != nil ? result * 4 : 0
        let grey = source.isGrey ? result * 2 : 0
        // The scaled or tiled watermark is at most the result's size; it is drawn on the result itself.
        let watermark = effects.watermark != nil ? result * 4 : 0
        return crop + filters + canvas + flattened + watermark + result * 4 + grey
    }
}
