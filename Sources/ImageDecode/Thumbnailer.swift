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
    /// rows; a progressive JPEG's coefficients), not on the size of the file. That working set is estimated
    /// from the header first, and a source over `request.maxDecodeMemory` is refused before it is allocated.
    /// Once `cancellation` is set it stops at the next row the decoder hands out, or before encoding.
    public func makeThumbnail(from input: EncodedImage, _ request: ThumbnailRequest,
                              cancellation: RenderCancellation? = nil) throws(ImageDecodeError) -> Thumbnail {
        try request.validate()
        let (image, info) = try ImageDecoder.withDecoder(
            for: input, maxPixels: request.maxPixels, maxMemory: request.maxDecodeMemory
        ) { decoder throws(ImageDecodeError) in
            let info = decoder.info
            let plan = ThumbnailPlan(info: info, request: request)
            let shrink = plan.shrink(sourceWidth: info.width, sourceHeight: info.height)
            _ = try Self.checkedWorkingMemory(decoder, plan: plan, request: request)
            let decoded = try decoder.start(shrink: shrink, convertToSRGB: request.convertToSRGB)
            let window = request.cropsAfterResizing ? (0, 0, plan.resizedWidth, plan.resizedHeight)
                : (plan.cropX, plan.cropY, plan.outputWidth, plan.outputHeight)
            var resampler = Resampler(sourceWidth: decoded.width, sourceHeight: decoded.height, channels: decoded.channels,
                                      resizedWidth: plan.resizedWidth, resizedHeight: plan.resizedHeight,
                                      crop: window, sourceExtent: decoder.decodedExtent)
            try decoder.readRows { (row) throws(ImageDecodeError) in
                try cancellation.check()
                resampler.push(row)
            }
            var resized = resampler.finish()
            // RGB profiles are applied to the small image, as libvips does outside linear mode.
            if request.convertToSRGB { decoder.rowProfile?.rgbTransform(channels: resized.channels)?.convert(&resized) }
            let upright = info.orientation.apply(to: resized)
            guard let strategy = request.smartCrop, request.fit == .cover else { return (upright, info) }
            // Chosen on the upright image, as libvips crops after rotating: "interesting" is judged as seen.
            let (width, height) = (min(upright.width, request.size), min(upright.height, request.size))
            let origin = SmartCrop.origin(strategy, in: upright, width: width, height: height)
            return (upright.cropped(x: origin.x, y: origin.y, width: width, height: height), info)
        }
        try cancellation.check()
        let format = request.format ?? (image.hasAlpha ? .png : .jpeg)
        let encoded = try ImageEncoder.encode(image, as: format, quality: request.quality)
        guard let fallback = request.fallback else {
            return Thumbnail(data: encoded, format: format, width: image.width, height: image.height, sourceInfo: info)
        }
        let other = fallback.format ?? (image.hasAlpha ? .png : .jpeg)
        let answer = try FormatFallback.answer(encoded, as: format, fallback: other) { () throws(ImageDecodeError) in
            try ImageEncoder.encode(image, as: other, quality: fallback.quality)
        }
        var thumbnail = Thumbnail(data: answer.data, format: answer.format, width: image.width, height: image.height, sourceInfo: info)
        thumbnail.declined = answer.declined
        return thumbnail
    }

    /// The memory `makeThumbnail(from: input, request)` will use, estimated from the header alone (only the
    /// first blocks of a file are read): what a caller running several decodes at once reserves for this one.
    /// Throws `overMemoryBudget` (or `tooLarge`) when `makeThumbnail` would refuse the source for it.
    public func workingMemory(for input: EncodedImage, _ request: ThumbnailRequest) throws(ImageDecodeError) -> Int {
        try request.validate()
        return try ImageDecoder.withDecoder(for: input, maxPixels: request.maxPixels) { decoder throws(ImageDecodeError) in
            try Self.checkedWorkingMemory(decoder, plan: ThumbnailPlan(info: decoder.info, request: request), request: request)
        }
    }

    /// The decoder's own buffers, the resizer's, and the output: the resized pixels, their oriented or
    /// flattened copy and the encoder's buffer, each at most the output's size. Over the limit it throws.
    private static func checkedWorkingMemory(_ decoder: any RowDecoder, plan: ThumbnailPlan,
                                             request: ThumbnailRequest) throws(ImageDecodeError) -> Int {
        let info = decoder.info
        let channels = info.hasAlpha ? 4 : 3
        let shrink = plan.shrink(sourceWidth: info.width, sourceHeight: info.height)
        // The resizer is sized for the full source: decoders that reduce while decoding only make it smaller.
        let resizing = Resampler.workingMemory(sourceWidth: info.width, sourceHeight: info.height, channels: channels,
                                               resizedWidth: plan.resizedWidth, resizedHeight: plan.resizedHeight,
                                               outputWidth: plan.outputWidth)
        let output = plan.outputWidth * plan.outputHeight * channels
        // A smart crop also holds the whole resized image (and its upright copy) while it chooses the window.
        let uncropped = request.cropsAfterResizing ? 2 * plan.resizedWidth * plan.resizedHeight * channels : 0
        let needed = decoder.workingMemory(shrink: shrink) + resizing + 3 * output + uncropped
        guard needed <= request.maxDecodeMemory else {
            throw .overMemoryBudget(needed: needed, limit: request.maxDecodeMemory)
        }
        return needed
    }
}
