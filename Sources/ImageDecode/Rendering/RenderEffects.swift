/// What a processed image gets after its geometry (imgproxy's `background`, `blur`, `sharpen`, `pixelate`,
/// `watermark`).
public struct RenderEffects: Sendable, Hashable {
    /// Fills extend and padding and flattens transparency; nil leaves both transparent (an encoder without
    /// alpha, JPEG, then flattens onto white, as imgproxy does).
    public var background: RGBColor?
    /// Gaussian blur sigma; 0 is none.
    public var blur: Double
    /// Unsharp-mask sigma (libvips's `sharpen`); 0 is none.
    public var sharpen: Double
    /// Block size in pixels; 0 and 1 are none.
    public var pixelate: Int
    /// Drawn over the finished result, after flattening (imgproxy's last step); nil: none.
    public var watermark: Watermark?

    /// The server's image and the request's `watermark` option.
    public struct Watermark: Sendable, Hashable {
        public var image: WatermarkImage
        public var options: WatermarkOptions

        public init(image: WatermarkImage, options: WatermarkOptions) {
            (self.image, self.options) = (image, options)
        }
    }

    public init(background: RGBColor? = nil, blur: Double = 0, sharpen: Double = 0, pixelate: Int = 0,
                watermark: Watermark? = nil) {
        (self.background, self.blur, self.sharpen, self.pixelate) = (background, blur, sharpen, pixelate)
        self.watermark = watermark
    }

    var hasFilters: Bool { blur > 0 || sharpen > 0 || pixelate > 1 }

    /// Blur, then sharpen, then pixelate, on premultiplied colour: imgproxy's order.
    func applyFilters(to image: PixelBuffer, cancellation: RenderCancellation? = nil) throws(ImageDecodeError) -> PixelBuffer {
        guard hasFilters else { return image }
        var working = FilterImage(image)
        if blur > 0 { try GaussianBlur.apply(to: &working, sigma: blur, cancellation: cancellation) }
        if sharpen > 0 { try Sharpen.apply(to: &working, sigma: sharpen, cancellation: cancellation) }
        if pixelate > 1 { try Pixelate.apply(to: &working, size: pixelate, cancellation: cancellation) }
        return working.pixelBuffer
    }
}
