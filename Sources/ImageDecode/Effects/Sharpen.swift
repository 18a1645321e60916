import Foundation

/// imgproxy's `sharpen`: libvips's `vips_sharpen` with its defaults (x1 2, y2 10, y3 20, m1 0, m2 3) at the given
/// sigma. An unsharp mask on lightness (CIE L*, 0…100): where L* differs from its blur by less than x1 (flat
/// areas, noise) nothing changes; beyond that the difference is amplified by m2, brightening by at most y2
/// and darkening by at most y3. Colour is kept: each pixel's linear RGB is scaled to the new lightness.
enum Sharpen {
    static let flatThreshold = 2.0      // x1
    static let maxBrightening = 10.0    // y2
    static let maxDarkening = 20.0      // y3
    static let flatSlope = 0.0          // m1
    static let jaggySlope = 3.0         // m2
    /// libvips's sharpen cuts its mask at a tenth of the peak, not a fifth as its blur does.
    static let minAmplitude = 0.1

    static func apply(to image: inout FilterImage, sigma: Double,
                      cancellation: RenderCancellation? = nil) throws(ImageDecodeError) {
        let weights = GaussianKernel.libvips(sigma: sigma, minAmplitude: minAmplitude)
        let count = image.width * image.height
        let channels = image.channels
        var lightness = [Float](repeating: 0, count: count)
        for p in 0..<count {
            if p % image.width == 0 { try cancellation.check() }  // a row at a time: its powers cost as much as a mask
            lightness[p] = Float(Self.lightness(ofLinearY: luminance(image.values, at: p * channels, channels: channels)))
        }
        var blurred = lightness
        try GaussianKernel.blur(&blurred, width: image.width, height: image.height, channels: 1, weights: weights,
                                cancellation: cancellation)
        for p in 0..<count {
            if p % image.width == 0 { try cancellation.check() }
            let l = Double(lightness[p])
            let sharpened = min(max(l + curve(l - Double(blurred[p])), 0), 100)
            guard sharpened != l else { continue }
            let base = p * channels
            let y = luminance(image.values, at: base, channels: channels)
            let target = linearY(ofLightness: sharpened)
            let scale = channels == 4 ? Double(image.values[base + 3]) / 255 : 1
            for c in 0..<3 {
                let linear = y > 0 ? toLinear(Double(image.values[base + c]) / 255 / max(scale, 1e-6)) * target / y : target
                image.values[base + c] = Float(fromLinear(linear) * 255 * scale)
            }
        }
    }

    /// libvips's sharpening curve: slope m1 inside ±x1, m2 beyond, clipped to +y2 / −y3.
    static func curve(_ difference: Double) -> Double {
        let y: Double
        if difference < -flatThreshold {
            y = (difference + flatThreshold) * jaggySlope - flatThreshold * flatSlope
        } else if difference < flatThreshold {
            y = difference * flatSlope
        } else {
            y = (difference - flatThreshold) * jaggySlope + flatThreshold * flatSlope
        }
        return min(max(y, -maxDarkening), maxBrightening)
    }

    /// Relative luminance (0…1) of the pixel at `base`, its colour unpremultiplied first.
    private static func luminance(_ values: [Float], at base: Int, channels: Int) -> Double {
        let alpha = channels == 4 ? Double(values[base + 3]) / 255 : 1
        guard alpha > 0 else { return 0 }
        let r = toLinear(Double(values[base]) / 255 / alpha)
        let g = toLinear(Double(values[base + 1]) / 255 / alpha)
        let b = toLinear(Double(values[base + 2]) / 255 / alpha)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    }

    static func lightness(ofLinearY y: Double) -> Double {
        y > 216.0 / 24389 ? 116 * cbrt(y) - 16 : y * 24389 / 27
    }

    static func linearY(ofLightness l: Double) -> Double {
        l > 8 ? pow((l + 16) / 116, 3) : l * 27 / 24389
    }

    static func toLinear(_ v: Double) -> Double {
        let v = min(max(v, 0), 1)
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    static func fromLinear(_ v: Double) -> Double {
        let v = min(max(v, 0), 1)
        return v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055
    }
}
