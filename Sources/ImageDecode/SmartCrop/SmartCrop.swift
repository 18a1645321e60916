/// Where to cut a crop of a given size out of an already-resized image so that it keeps the interesting
/// part, in the manner of libvips's `vips_smartcrop` (what imgproxy's `g:sm` and `vipsthumbnail --smartcrop`
/// use). Both strategies look only at the small image they are given, so they cost milliseconds, not a
/// second decode. A crop as large as the image (or larger) is the whole image: the origin is (0, 0).
///
///     let (x, y) = SmartCrop.attention(in: resized, width: 256, height: 256)
///     let cropped = resized.cropped(x: x, y: y, width: 256, height: 256)
public enum SmartCrop {
    /// How the interesting part is found.
    public enum Strategy: String, Sendable, CaseIterable {
        /// Edges, skin tones and saturated colours scored on a 32×32 grid, blurred, the crop centred on the
        /// peak (libvips's `attention`, imgproxy's `sm`).
        case attention
        /// The side with the less varied pixels is trimmed until the crop fits (libvips's `entropy`).
        case entropy
    }

    /// The crop's top-left corner for `strategy`; the crop size is first limited to 1…the image's size.
    public static func origin(_ strategy: Strategy, in image: PixelBuffer, width: Int, height: Int) -> (x: Int, y: Int) {
        switch strategy {
        case .attention: return attention(in: image, width: width, height: height)
        case .entropy: return entropy(in: image, width: width, height: height)
        }
    }

    /// The top-left corner of a `width × height` crop centred on the image's point of most attention and
    /// moved inside the image where the centred crop would stick out.
    public static func attention(in image: PixelBuffer, width: Int, height: Int) -> (x: Int, y: Int) {
        let crop = limited(width, height, to: image)
        if crop == (image.width, image.height) { return (0, 0) }
        let centre = AttentionMap(image: image).focus(cropWidth: crop.width, cropHeight: crop.height)
        return (clamp(centre.x - crop.width / 2, upTo: image.width - crop.width),
                clamp(centre.y - crop.height / 2, upTo: image.height - crop.height))
    }

    /// The top-left corner of the `width × height` crop left after repeatedly trimming, from each axis that is
    /// still too long, the end strip whose pixel values have the lower entropy (the flatter, duller side).
    public static func entropy(in image: PixelBuffer, width: Int, height: Int) -> (x: Int, y: Int) {
        let crop = limited(width, height, to: image)
        if crop == (image.width, image.height) { return (0, 0) }
        return EntropyTrimmer(image: image).trim(toWidth: crop.width, height: crop.height)
    }

    /// A requested side of 0 or less is taken as 1, one longer than the image as the image's.
    static func limited(_ width: Int, _ height: Int, to image: PixelBuffer) -> (width: Int, height: Int) {
        (min(max(width, 1), image.width), min(max(height, 1), image.height))
    }

    static func clamp(_ value: Int, upTo limit: Int) -> Int {
        min(max(value, 0), max(limit, 0))
    }
}
