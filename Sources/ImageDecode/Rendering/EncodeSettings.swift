import Foundation

/// How a rendered image is written: format, quality, and an optional size limit (imgproxy's `max_bytes`).
public struct EncodeSettings: Sendable, Hashable {
    public var format: ImageFormat
    /// 1…100 for JPEG, WebP and AVIF; PNG is lossless and ignores it.
    public var quality: Int
    /// > 0: lower the quality until the bytes fit (JPEG, WebP, AVIF; PNG ignores it, as imgproxy does).
    public var maxBytes: Int
    /// What the output keeps of the source's metadata (imgproxy's defaults unless set).
    public var metadata: MetadataPolicy

    /// `quality` nil: `ImageEncoder.defaultQuality(for: format)`.
    public init(format: ImageFormat, quality: Int? = nil, maxBytes: Int = 0, metadata: MetadataPolicy = MetadataPolicy()) {
        (self.format, self.quality, self.maxBytes) = (format, quality ?? ImageEncoder.defaultQuality(for: format), maxBytes)
        self.metadata = metadata
    }

    /// The lowest quality `max_bytes` steps down to; what is encoded there is answered even when too large.
    public static let maxBytesQualityFloor = 10

    /// Encodes `image`, stepping the quality down as imgproxy's `saveImageToFitBytes` does: by a quarter when
    /// the result is within 1.5× of the limit, a half within 3×, three quarters beyond, until it fits or the
    /// quality is at most 10. Returns the bytes and the quality they were written at. `grey` and `metadata` go to
    /// `ImageEncoder.encode` as they are (`answer` works them out from the source).
    public func encode(_ image: PixelBuffer, grey: Bool = false,
                       metadata: ImageMetadata = ImageMetadata()) throws(ImageDecodeError) -> (data: Data, quality: Int) {
        try fitting { (quality) throws(ImageDecodeError) in
            try ImageEncoder.encode(image, as: format, quality: quality, grey: grey, metadata: metadata)
        }
    }

    /// Encodes frames a caller holds (GIF or WebP: `ImageFormat.savesAnimation`), stepping the quality down as
    /// `encode` does. A render is not held like this: `answerAnimation` writes each frame as it is rendered.
    /// Animations carry no metadata (imgproxy strips it from them too).
    public func encode(frames: [PixelBuffer], delays: [Int], loopCount: Int?) throws(ImageDecodeError) -> (data: Data, quality: Int) {
        try fitting { (quality) throws(ImageDecodeError) in
            try AnimationEncoder.encode(frames, delays: delays, loopCount: loopCount, as: format, quality: quality)
        }
    }

    /// The `max_bytes` loop around one encode at a given quality (PNG and GIF are lossless: encoded once).
    private func fitting(_ encode: (Int) throws(ImageDecodeError) -> Data) throws(ImageDecodeError) -> (data: Data, quality: Int) {
        try checkEncodable()
        var quality = self.quality
        while true {
            let data = try encode(quality)
            guard let lower = nextQuality(after: data, at: quality) else { return (data, quality) }
            quality = lower
        }
    }

    /// Refuses a format that is not written and a quality out of 1…100, before anything is encoded.
    fileprivate func checkEncodable() throws(ImageDecodeError) {
        guard format.isEncodable else { throw .invalidRequest(ImageEncoder.unwritable(format)) }
        guard (1...100).contains(quality) else {
            throw .invalidRequest("quality must be between 1 and 100, got \(quality)")
        }
    }

    /// imgproxy's `saveImageToFitBytes` step: the quality tried after `data`, written at `quality`, is over
    /// `maxBytes`; nil when `data` is answered (it fits, the format is lossless, or the floor is reached).
    fileprivate func nextQuality(after data: Data, at quality: Int) -> Int? {
        guard maxBytes > 0, format != .png, format != .gif, data.count > maxBytes, quality > Self.maxBytesQualityFloor else {
            return nil
        }
        let over = Double(data.count) / Double(maxBytes)
        let factor = over > 3 ? 0.25 : over > 1.5 ? 0.5 : 0.75
        return max(1, Int(Double(quality) * factor))
    }
}

extension EncodeSettings {
    /// A rendered image as its answer: encoded with these settings and, when the format was negotiated, with
    /// `fallback` (what the request answers without negotiation) too, the smaller kept as `FormatFallback` decides.
    /// The one place a render becomes bytes, for `Thumbnailer` and processing options alike. `sourceInfo` is the
    /// original's header, carried into the answer: a grey source's neutral render is written grey where the format
    /// can (`PixelBuffer+Grey`), and its metadata as `metadata` keeps it (`autoRotated`: the render applied the EXIF
    /// orientation, which the output then resets to 1). Once `cancellation` is set it stops before the next encode.
    public func answer(_ image: PixelBuffer, sourceInfo: ImageInfo, fallback: EncodeSettings? = nil, autoRotated: Bool = true,
                       cancellation: RenderCancellation? = nil) throws(ImageDecodeError) -> Thumbnail {
        try cancellation.check()
        let grey = sourceInfo.isGrey && image.isNeutral
        let encoded = try encode(image, grey: grey, metadata: metadata.output(for: sourceInfo, autoRotated: autoRotated)).data
        guard let fallback else {
            return Thumbnail(data: encoded, format: format, width: image.width, height: image.height, sourceInfo: sourceInfo)
        }
        let answer = try FormatFallback.answer(encoded, as: format, fallback: fallback.format) { () throws(ImageDecodeError) in
            try cancellation.check()
            return try fallback.encode(image, grey: grey,
                                       metadata: fallback.metadata.output(for: sourceInfo, autoRotated: autoRotated)).data
        }
        var thumbnail = Thumbnail(data: answer.data, format: answer.format, width: image.width, height: image.height,
                                  sourceInfo: sourceInfo)
        thumbnail.declined = answer.declined
        return thumbnail
    }
}

extension EncodeSettings {
    /// The formats an animation answered in `format` is written in at once: `format`, and a negotiated request's
    /// `fallback` when it saves animation too (`FormatFallback`). One place for the rule, for `answerAnimation` and
    /// for the memory it reserves (`PlanRenderer.workingMemory(forAnimation:...formats:)`).
    public static func animationFormats(_ format: ImageFormat, fallback: ImageFormat?) -> [ImageFormat] {
        guard let fallback, fallback.savesAnimation, fallback != format else { return [format] }
        return [format, fallback]
    }

    /// An animation as its answer, as `answer(_:sourceInfo:...)` is for a still, with no frame held: `render` renders
    /// it (`PlanRenderer.renderAnimation(from:...into:)`) into the writers it is given, each frame written as it
    /// comes. With `fallback` (when it saves animation too) both formats are written from one render and the smaller
    /// kept (`FormatFallback`). A lossy file over `max_bytes` is rendered again at the next lower quality, as
    /// `encode` steps a still's (the frames are not kept between tries); each format steps on its own.
    public func answerAnimation(sourceInfo: ImageInfo, fallback: EncodeSettings? = nil, cancellation: RenderCancellation? = nil,
                                render: ([any AnimationWriter]) throws(ImageDecodeError) -> RenderedAnimation)
        throws(ImageDecodeError) -> Thumbnail
    {
        try cancellation.check()
        let second = Self.animationFormats(format, fallback: fallback?.format).count > 1 ? fallback : nil
        let targets = [self] + (second.map { [$0] } ?? [])
        for target in targets { try target.checkEncodable() }
        // The quality each format is written at next; nil once its file is answered.
        var qualities: [Int?] = targets.map { $0.quality }
        var files = [Data](repeating: Data(), count: targets.count)
        var rendered: RenderedAnimation
        repeat {
            var writers = [any AnimationWriter](), written = [(index: Int, quality: Int)]()
            for (index, target) in targets.enumerated() {
                guard let quality = qualities[index] else { continue }
                files[index] = Data()  // a file over max_bytes is not kept while the next is written
                writers.append(try AnimationEncoder.writer(for: target.format, quality: quality))
                written.append((index, quality))
            }
            rendered = try render(writers)
            for ((index, quality), writer) in zip(written, writers) {
                files[index] = try writer.finish(loopCount: rendered.loopCount)
                qualities[index] = targets[index].nextQuality(after: files[index], at: quality)
            }
        } while qualities.contains(where: { $0 != nil })
        var thumbnail = Thumbnail(data: files[0], format: format, width: rendered.width, height: rendered.height,
                                  sourceInfo: sourceInfo)
        thumbnail.frames = rendered.frameCount
        guard let second else { return thumbnail }
        let answer = try FormatFallback.answer(files[0], as: format, fallback: second.format) { () throws(ImageDecodeError) in files[1] }
        (thumbnail.data, thumbnail.format, thumbnail.declined) = (answer.data, answer.format, answer.declined)
        return thumbnail
    }
}
