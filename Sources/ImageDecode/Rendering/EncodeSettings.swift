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

    /// Encodes `animation` (GIF or WebP: `ImageFormat.savesAnimation`), stepping the quality down as `encode` does.
    /// Animations carry no metadata (imgproxy strips it from them too).
    public func encode(_ animation: RenderedAnimation) throws(ImageDecodeError) -> (data: Data, quality: Int) {
        try fitting { (quality) throws(ImageDecodeError) in
            try AnimationEncoder.encode(animation, as: format, quality: quality)
        }
    }

    /// The `max_bytes` loop around one encode at a given quality (PNG and GIF are lossless: encoded once).
    private func fitting(_ encode: (Int) throws(ImageDecodeError) -> Data) throws(ImageDecodeError) -> (data: Data, quality: Int) {
        guard format.isEncodable else { throw .invalidRequest(ImageEncoder.unwritable(format)) }
        guard (1...100).contains(quality) else {
            throw .invalidRequest("quality must be between 1 and 100, got \(quality)")
        }
        var quality = self.quality
        while true {
            let data = try encode(quality)
            guard maxBytes > 0, format != .png, format != .gif, data.count > maxBytes, quality > Self.maxBytesQualityFloor else {
                return (data, quality)
            }
            let over = Double(data.count) / Double(maxBytes)
            let factor = over > 3 ? 0.25 : over > 1.5 ? 0.5 : 0.75
            quality = max(1, Int(Double(quality) * factor))
        }
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
    /// A rendered animation as its answer, as `answer(_:sourceInfo:...)` does for a still: with `fallback` (when it
    /// saves animation too) encoded beside it and the smaller kept (`FormatFallback`).
    public func answer(_ animation: RenderedAnimation, sourceInfo: ImageInfo, fallback: EncodeSettings? = nil,
                       cancellation: RenderCancellation? = nil) throws(ImageDecodeError) -> Thumbnail {
        try cancellation.check()
        let encoded = try encode(animation).data
        var thumbnail = Thumbnail(data: encoded, format: format, width: animation.width, height: animation.height,
                                  sourceInfo: sourceInfo)
        thumbnail.frames = animation.frames.count
        guard let fallback, fallback.format.savesAnimation else { return thumbnail }
        let answer = try FormatFallback.answer(encoded, as: format, fallback: fallback.format) { () throws(ImageDecodeError) in
            try cancellation.check()
            return try fallback.encode(animation).data
        }
        (thumbnail.data, thumbnail.format, thumbnail.declined) = (answer.data, answer.format, answer.declined)
        return thumbnail
    }
}
