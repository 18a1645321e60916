/// Greyscale in, greyscale out, without a grey `PixelBuffer`: the decoders still deliver RGB(A) and the resampler,
/// effects and canvas stay 3/4-channel (no second code path through each of them). The decoder reports a grey source
/// (`ImageInfo.isGrey`), and the encoder writes one channel when the source was grey and every rendered pixel is
/// still neutral; a colour background, padding colour or effect that tints then correctly gives colour, as
/// imgproxy's TestWatermarkColorspace expects. The cost is one pass over the result and a 1-2 byte a pixel copy,
/// only for grey sources (`PlanRenderer.outputMemory` counts it). 16-bit grey sources come out as 8-bit grey.
extension PixelBuffer {
    /// Whether R = G = B in every pixel (alpha aside).
    public var isNeutral: Bool {
        pixels.withUnsafeBufferPointer { pixels in
            var at = 0
            while at < pixels.count {
                if pixels[at] != pixels[at + 1] || pixels[at] != pixels[at + 2] { return false }
                at += channels
            }
            return true
        }
    }

    /// The rows an encoder with grey layouts writes: grey (+alpha) when `grey`, else the pixels as they are.
    func encodedLayout(grey: Bool) -> (pixels: [UInt8], channels: Int) {
        grey ? (greyPixels(keepingAlpha: true), channels - 2) : (pixels, channels)
    }

    /// The grey channel (and alpha, when `keepingAlpha` and there is any) of a neutral image, interleaved.
    func greyPixels(keepingAlpha: Bool) -> [UInt8] {
        let alpha = keepingAlpha && hasAlpha
        var grey = [UInt8](repeating: 0, count: width * height * (alpha ? 2 : 1))
        pixels.withUnsafeBufferPointer { pixels in
            grey.withUnsafeMutableBufferPointer { grey in
                for index in 0..<(width * height) {
                    if alpha {
                        grey[index * 2] = pixels[index * 4]
                        grey[index * 2 + 1] = pixels[index * 4 + 3]
                    } else {
                        grey[index] = pixels[index * channels]
                    }
                }
            }
        }
        return grey
    }
}
