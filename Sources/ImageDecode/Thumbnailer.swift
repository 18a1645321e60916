import Foundation

/// The one-call facade: image bytes in, thumbnail bytes out, for the short grammar's `size/contain|cover`.
/// The request becomes a `ProcessingPlan`, `PlanRenderer` draws it (decode with shrink-on-load -> resize ->
/// sRGB -> orient -> smart crop), and `EncodeSettings.answer` encodes it, as for any processing URL.
/// Stateless and Sendable; every call owns its decoder, so calls may run concurrently.
public struct Thumbnailer: Sendable {
    public init() {}

    /// Reads only the header: format, stored size, orientation, alpha.
    public func probe(_ data: Data) throws(ImageDecodeError) -> ImageInfo {
        try ImageDecoder.probe(.data(data))
    }

    public func probe(_ input: EncodedImage) throws(ImageDecodeError) -> ImageInfo {
        try ImageDecoder.probe(input)
    }

    public func makeThumbnail(from data: Data, _ request: ThumbnailRequest) throws(ImageDecodeError) -> Thumbnail {
        try makeThumbnail(from: .data(data), request)
    }

    /// A thumbnail is a processing plan (`ThumbnailRequest.plan(for:)`) drawn by the one renderer, `PlanRenderer`:
    /// from a file, peak memory depends on the thumbnail's size and the decoder's working set (one strip of rows;
    /// a progressive JPEG's coefficients), not on the size of the file. That working set is estimated from the
    /// header first (`workingMemory`), and a source over `request.maxDecodeMemory` is refused before it is
    /// allocated. Once `cancellation` is set it stops at the next row the decoder hands out, or before encoding.
    public func makeThumbnail(from input: EncodedImage, _ request: ThumbnailRequest,
                              cancellation: RenderCancellation? = nil) throws(ImageDecodeError) -> Thumbnail {
        try request.validate()
        // Opened once for the probe and the render: an SVG is parsed once (`OpenedImage`).
        let input = input.openedOnce()
        // Under the pixel limit: an SVG's size is the size it is drawn at (`SVGDecoder`).
        let info = try ImageDecoder.probe(input, maxPixels: request.maxPixels)
        // A profile kept (`stripColorProfile` off) describes the stored values: they are left unconverted.
        let image = try PlanRenderer().render(from: input, plan: request.plan(for: info), limits: request.limits,
                                              convertToSRGB: request.convertToSRGB && !request.metadata.keepsProfile(of: info),
                                              cancellation: cancellation)
        // Without a format: JPEG, or PNG to keep transparency; a negotiated format falls back to the same rule.
        let natural: ImageFormat = image.hasAlpha ? .png : .jpeg
        let fallback = request.fallback.map { EncodeSettings(format: $0.format ?? natural, quality: $0.quality, metadata: request.metadata) }
        return try EncodeSettings(format: request.format ?? natural, quality: request.quality, metadata: request.metadata)
            .answer(image, sourceInfo: info, fallback: fallback, cancellation: cancellation)
    }

    /// The memory `makeThumbnail(from: input, request)` will use, estimated from the header alone (only the
    /// first blocks of a file are read): what a caller running several decodes at once reserves for this one.
    /// The renderer's one estimate (`PlanRenderer.workingMemory`) for the request's plan. Throws
    /// `overMemoryBudget` (or `tooLarge`) when `makeThumbnail` would refuse the source for it.
    public func workingMemory(for input: EncodedImage, _ request: ThumbnailRequest) throws(ImageDecodeError) -> Int {
        try request.validate()
        let input = input.openedOnce()
        return try PlanRenderer().workingMemory(for: input, plan: request.plan(for: ImageDecoder.probe(input, maxPixels: request.maxPixels)),
                                                limits: request.limits, formats: request.format.map { [$0] } ?? [])
    }
}
