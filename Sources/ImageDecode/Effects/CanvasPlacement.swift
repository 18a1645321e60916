/// imgproxy's `extend`, `extend_aspect_ratio` and `padding` in one step: the image put on a larger canvas at a
/// given corner, the rest filled with the background colour, or left transparent when there is none (libvips's
/// `embed` with a black, transparent extension, as imgproxy calls it; an encoder without alpha then flattens
/// onto white, so a JPEG gets white borders and a PNG transparent ones).
enum CanvasPlacement {
    static func place(_ image: PixelBuffer, onWidth width: Int, height: Int, atX left: Int, y top: Int,
                      background: RGBColor?) -> PixelBuffer {
        if width == image.width && height == image.height && left == 0 && top == 0 { return image }
        let source = background == nil && !image.hasAlpha ? image.withAlpha() : image
        let channels = source.channels
        var fill: [UInt8] = background.map { [$0.red, $0.green, $0.blue] } ?? [0, 0, 0]
        if channels == 4 { fill.append(background == nil ? 0 : 255) }
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for i in 0..<(width * height) { for c in 0..<channels { pixels[i * channels + c] = fill[c] } }
        let rowBytes = source.rowBytes
        for y in 0..<source.height {
            let target = ((top + y) * width + left) * channels
            pixels.replaceSubrange(target..<target + rowBytes, with: source.pixels[y * rowBytes..<(y + 1) * rowBytes])
        }
        return PixelBuffer(width: width, height: height, channels: channels, pixels: pixels)
    }
}

extension PixelBuffer {
    /// RGBA with every pixel opaque (the image itself when it has alpha already).
    func withAlpha() -> PixelBuffer {
        guard channels == 3 else { return self }
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        for i in 0..<(width * height) {
            rgba[i * 4] = pixels[i * 3]; rgba[i * 4 + 1] = pixels[i * 3 + 1]; rgba[i * 4 + 2] = pixels[i * 3 + 2]
        }
        return PixelBuffer(width: width, height: height, channels: 4, pixels: rgba)
    }
}
