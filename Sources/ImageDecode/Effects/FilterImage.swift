/// An image as Floats with colour premultiplied by alpha, for the filters: blurring or averaging neighbours
/// must not let the colour of invisible pixels bleed into visible ones (imgproxy premultiplies around its
/// filters for the same reason).
struct FilterImage {
    let width: Int
    let height: Int
    let channels: Int
    var values: [Float]

    init(_ image: PixelBuffer) {
        (width, height, channels) = (image.width, image.height, image.channels)
        values = image.pixels.map(Float.init)
        guard channels == 4 else { return }
        for i in stride(from: 0, to: values.count, by: 4) {
            let alpha = values[i + 3] / 255
            values[i] *= alpha; values[i + 1] *= alpha; values[i + 2] *= alpha
        }
    }

    /// Back to 8-bit straight alpha, rounded and clamped.
    var pixelBuffer: PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: values.count)
        let step = channels
        for i in stride(from: 0, to: values.count, by: step) {
            let alpha = step == 4 ? min(max(values[i + 3], 0), 255) : 255
            let factor: Float = alpha > 0 ? 255 / alpha : 0
            for c in 0..<3 { bytes[i + c] = Self.byte(values[i + c] * factor) }
            if step == 4 { bytes[i + 3] = Self.byte(alpha) }
        }
        return PixelBuffer(width: width, height: height, channels: channels, pixels: bytes)
    }

    private static func byte(_ value: Float) -> UInt8 {
        UInt8(min(max(value, 0), 255) + 0.5)
    }
}
