import Foundation

/// The server's watermark (imgproxy's `IMGPROXY_WATERMARK_PATH`/`URL`/`DATA`), decoded once at start-up: upright
/// (EXIF orientation applied, as imgproxy's watermark pipeline does), sRGB, with alpha. Compared by identity: one
/// configured image, shared by every render that draws it.
public final class WatermarkImage: Sendable, Hashable {
    public let pixels: PixelBuffer
    /// The server's `--watermark-opacity` (imgproxy's `IMGPROXY_WATERMARK_OPACITY`), multiplying each URL's.
    public let opacity: Double

    /// Decodes `data`; throws what the decoder throws for an unreadable image.
    public init(data: Data, opacity: Double = 1, maxPixels: Int = ImageDecoder.defaultMaxPixels) throws(ImageDecodeError) {
        let info = try ImageDecoder.probe(data)
        let decoded = try ImageDecoder.decode(data, maxPixels: maxPixels)
        pixels = info.orientation.apply(to: decoded).withAlpha()
        self.opacity = opacity
    }

    /// An image already decoded (tests, library callers).
    public init(pixels: PixelBuffer, opacity: Double = 1) {
        (self.pixels, self.opacity) = (pixels.withAlpha(), opacity)
    }

    public static func == (lhs: WatermarkImage, rhs: WatermarkImage) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
