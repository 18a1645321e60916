extension PixelBuffer {
    /// The `width × height` window whose top-left is (`x`, `y`); the window must lie inside the image.
    public func cropped(x: Int, y: Int, width: Int, height: Int) -> PixelBuffer {
        precondition(x >= 0 && y >= 0 && width > 0 && height > 0 && x + width <= self.width && y + height <= self.height,
                     "crop \(width)x\(height)+\(x)+\(y) is outside the \(self.width)x\(self.height) image")
        if (x, y, width, height) == (0, 0, self.width, self.height) { return self }
        var window = [UInt8]()
        window.reserveCapacity(width * height * channels)
        for row in y..<(y + height) {
            let start = (row * self.width + x) * channels
            window.append(contentsOf: pixels[start..<start + width * channels])
        }
        return PixelBuffer(width: width, height: height, channels: channels, pixels: window)
    }

    /// RGB with each colour scaled by its alpha (composited over black): what the smart-crop scores look at,
    /// so colours hidden under transparency cannot attract the crop.
    func premultipliedRGB() -> PixelBuffer {
        channels == 4 ? flattened(background: (0, 0, 0)) : self
    }
}
