extension PixelBuffer {
    /// The whole image resampled (Lanczos3) to `width` x `height`: for the small images resized outside a render
    /// (a watermark to its scale, an icon to ICO's 256 px).
    func resampled(width: Int, height: Int) -> PixelBuffer {
        var resampler = Resampler(sourceWidth: self.width, sourceHeight: self.height, channels: channels,
                                  resizedWidth: width, resizedHeight: height)
        pixels.withUnsafeBufferPointer { all in
            for row in 0..<self.height {
                resampler.push(UnsafeBufferPointer(rebasing: all[row * rowBytes..<(row + 1) * rowBytes]))
            }
        }
        return resampler.finish()
    }
}
