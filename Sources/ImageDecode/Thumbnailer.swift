import Foundation

/// The one-call facade: image bytes in, thumbnail bytes out.
/// Data flows one way: decode (with shrink-on-load) -> resize -> to sRGB -> orient -> encode.
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

    /// From a file, peak memory depends on the thumbnail's size and the decoder's working set (one strip of
    /// rows; a progressive JPEG's coefficients), not on the size of the file.
    public func makeThumbnail(from input: EncodedImage, _ request: ThumbnailRequest) throws(ImageDecodeError) -> Thumbnail {
        try request.validate()
        let (image, info) = try ImageDecoder.withDecoder(for: input, maxPixels: request.maxPixels) {
            decoder throws(ImageDecodeError) in
            let info = decoder.info
            let plan = ThumbnailPlan(info: info, request: request)
            let decoded = try decoder.start(shrink: plan.shrink(sourceWidth: info.width, sourceHeight: info.height),
                                            convertToSRGB: request.convertToSRGB)
            var resampler = Resampler(sourceWidth: decoded.width, sourceHeight: decoded.height, channels: decoded.channels,
                                      resizedWidth: plan.resizedWidth, resizedHeight: plan.resizedHeight,
                                      crop: (plan.cropX, plan.cropY, plan.outputWidth, plan.outputHeight))
            try decoder.readRows { row in resampler.push(row) }
            var resized = resampler.finish()
            // RGB profiles are applied to the small image, as libvips does outside linear mode.
            if request.convertToSRGB { decoder.rowProfile?.rgbTransform(channels: resized.channels)?.convert(&resized) }
            return (info.orientation.apply(to: resized), info)
        }
        let format = request.format ?? (image.hasAlpha ? .png : .jpeg)
        let encoded = try ImageEncoder.encode(image, as: format, quality: request.quality)
        return Thumbnail(data: encoded, format: format, width: image.width, height: image.height, sourceInfo: info)
    }
}
