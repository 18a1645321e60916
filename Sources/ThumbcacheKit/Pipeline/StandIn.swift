import ImageDecode

/// The one rule for what a render reads, for both grammars: the original, or a stored ladder thumbnail standing
/// in for it. A rung stands in only when it covers the render at the quality asked for:
/// - in pixels: it scales the original by at least the render's own scale (every output pixel still comes from a
///   reduction, never an enlargement), and is smaller than the original;
/// - in quality: a PNG rung is lossless and always serves; a lossy rung (JPEG, WebP, AVIF, encoded at its format's
///   default quality) serves only lossy outputs asked for at no more than their format's default quality. A
///   `q:100` PNG from a 512 px AVIF rung measured 32.6 dB PSNR against 55.6 dB from the original.
struct StandIn: Equatable {
    let size: Int
    let format: ImageFormat

    /// What the render writes: its format, its fallback when the format was negotiated, and its quality.
    struct Output {
        var format: ImageFormat
        var fallback: ImageFormat?
        var quality: Int
    }

    /// The smallest stored rung (in its best-kept format) that covers a render scaling the upright original by
    /// `scale` (the larger of its two scales); nil: read the original.
    static func choose(scale: Double, output: Output, original: CacheMetadata.Original, stored: [CacheMetadata.StoredSize],
                       qualities: FormatQualities) -> StandIn? {
        guard original.width > 0, original.height > 0, scale < 1 else { return nil }
        let longest = Double(max(original.width, original.height))
        let lossless = [output.format, output.fallback].contains(.png)
        let lossyServes = !lossless && output.quality <= qualities[output.format]
        for rung in stored.sorted(by: { $0.size < $1.size })
        where Double(rung.size) / longest >= scale && Double(rung.size) < longest {
            let kept = Set(rung.parts.filter { $0.bytes > 0 }.map(\.format))
            // Lossless first, then the lossy formats that decode fastest.
            // A grey original's WebP rung is RGB, and lossy 4:2:0 left it not quite neutral: a render from it would
            // come out in colour, where one from the original (or a grey JPEG, PNG or AVIF rung) is grey.
            for format in [ImageFormat.png, .jpeg, .webp, .avif]
            where kept.contains(format.rawValue) && !(format == .webp && original.grey == true) {
                if format == .png || lossyServes { return StandIn(size: rung.size, format: format) }
            }
        }
        return nil
    }
}
