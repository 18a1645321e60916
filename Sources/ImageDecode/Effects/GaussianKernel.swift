import Foundation

/// libvips's Gaussian mask (`vips_gaussmat` at integer precision): cut where it falls below `minAmplitude` of
/// its peak, weights rounded to twentieths of the peak, then normalised. Shared by the blur, the sharpen and
/// the smart crop's score blur so all three fall as libvips's do.
enum GaussianKernel {
    /// `2 × radius + 1` weights summing to 1; a single 1 when even the nearest neighbour is below the cut.
    static func libvips(sigma: Double, minAmplitude: Double, maxRadius: Int = 5000) -> [Double] {
        guard sigma > 0 else { return [1] }
        var radius = 0
        while radius < maxRadius, exp(-Double((radius + 1) * (radius + 1)) / (2 * sigma * sigma)) >= minAmplitude {
            radius += 1
        }
        let kernel = (-radius...radius).map { (20 * exp(-Double($0 * $0) / (2 * sigma * sigma))).rounded() }
        let total = kernel.reduce(0, +)
        return kernel.map { $0 / total }
    }

    /// Convolves `count` rows of `width` values, `stride` apart, with `weights` along each row (`step` = 1) or
    /// down each column (rows and columns swap roles through `step`); values beyond the edge repeat the edge.
    /// Stops between lines once `cancellation` is set (a wide mask costs seconds on a large image).
    static func convolve(_ values: inout [Float], weights: [Double], length: Int, lines: Int,
                         along step: Int, across lineStep: Int, channels: Int,
                         cancellation: RenderCancellation? = nil) throws(ImageDecodeError) {
        let radius = weights.count / 2
        guard radius > 0, length > 0 else { return }
        let taps = weights.map(Float.init)
        var line = [Float](repeating: 0, count: length * channels)
        try values.withUnsafeMutableBufferPointer { (values: inout UnsafeMutableBufferPointer<Float>) throws(ImageDecodeError) in
            for l in 0..<lines {
                try cancellation.check()
                let base = l * lineStep
                for i in 0..<length {
                    for c in 0..<channels { line[i * channels + c] = values[base + i * step + c] }
                }
                for i in 0..<length {
                    for c in 0..<channels {
                        var sum: Float = 0
                        for k in -radius...radius {
                            sum += taps[k + radius] * line[min(max(i + k, 0), length - 1) * channels + c]
                        }
                        values[base + i * step + c] = sum
                    }
                }
            }
        }
    }

    /// A separable blur of an interleaved `width × height` image with `channels` values a pixel.
    static func blur(_ values: inout [Float], width: Int, height: Int, channels: Int, weights: [Double],
                     cancellation: RenderCancellation? = nil) throws(ImageDecodeError) {
        try convolve(&values, weights: weights, length: width, lines: height, along: channels, across: width * channels,
                     channels: channels, cancellation: cancellation)
        try convolve(&values, weights: weights, length: height, lines: width, along: width * channels, across: channels,
                     channels: channels, cancellation: cancellation)
    }
}
