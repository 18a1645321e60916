import Foundation

/// libvips's "attention" score of an image on a coarse grid: how much each cell has edges (a Laplacian of
/// luminance), skin-like colour and saturated colour. The grid is the image resized to 32×32 whatever its
/// aspect, so the crop can be placed to about a thirty-second of either side, and scoring costs the same for
/// any image. Colour maths follow CIE XYZ and L*a*b* (D65) on linear light, with luminance 0…100, as libvips
/// works, so the weights below mean what they mean there.
struct AttentionMap {
    static let gridSize = 32
    /// Edges count five times their Laplacian (in luminance units), as in libvips.
    static let edgeWeight = 5.0
    /// Cells darker than this luminance (0…100) score no skin or saturation: noise in shadows is not a subject.
    static let darkLuminance = 5.0
    /// A unit XYZ direction typical of skin (from smartcrop.js, by way of libvips).
    static let skinDirection = (x: 0.78, y: 0.57, z: 0.44)

    let imageWidth: Int
    let imageHeight: Int
    /// `gridSize × gridSize` scores, rows top to bottom.
    private(set) var scores: [Double]

    init(image: PixelBuffer) {
        imageWidth = image.width
        imageHeight = image.height
        let grid = Self.downsampled(image.premultipliedRGB())
        let n = Self.gridSize
        var luminance = [Double](repeating: 0, count: n * n)
        var colour = [Double](repeating: 0, count: n * n)
        for cell in 0..<(n * n) {
            let xyz = Self.xyz(red: grid.pixels[cell * 3], green: grid.pixels[cell * 3 + 1], blue: grid.pixels[cell * 3 + 2])
            luminance[cell] = xyz.y
            if xyz.y > Self.darkLuminance { colour[cell] = Self.skin(xyz) + Self.redGreen(xyz) }
        }
        scores = [Double](repeating: 0, count: n * n)
        for y in 0..<n {
            for x in 0..<n {
                // Neighbours beyond the border repeat the border cell, so the frame itself is not an edge.
                let centre = luminance[y * n + x]
                let around = luminance[y * n + max(x - 1, 0)] + luminance[y * n + min(x + 1, n - 1)]
                    + luminance[max(y - 1, 0) * n + x] + luminance[min(y + 1, n - 1) * n + x]
                scores[y * n + x] = abs(Self.edgeWeight * (4 * centre - around)) + colour[y * n + x]
            }
        }
    }

    /// The image point the crop should centre on: the peak of the scores blurred over about a tenth of the
    /// crop's diagonal (measured on the grid), so the crop goes where interest is dense rather than to a
    /// single sharp cell. A grid cell maps back to its top-left image pixel, as libvips maps it.
    func focus(cropWidth: Int, cropHeight: Int) -> (x: Int, y: Int) {
        let n = Double(Self.gridSize)
        let diagonal = hypot(Double(cropWidth) * n / Double(imageWidth), Double(cropHeight) * n / Double(imageHeight))
        let blurred = Self.blurred(scores, size: Self.gridSize, sigma: max(diagonal / 10, 1))
        var peak = 0
        for cell in blurred.indices where blurred[cell] > blurred[peak] { peak = cell }
        return (Int(Double(peak % Self.gridSize) * Double(imageWidth) / n),
                Int(Double(peak / Self.gridSize) * Double(imageHeight) / n))
    }

    /// The image resized to the grid as libvips resizes it, so near-equal peaks fall the same way: on each axis
    /// a box average by the whole part of half the reduction, then Lanczos3 for the rest (our `Resampler`'s own
    /// box stage uses one factor for both axes, and the grid's two axes usually shrink by different amounts).
    private static func downsampled(_ image: PixelBuffer) -> PixelBuffer {
        let factorX = max(1, image.width / gridSize / 2), factorY = max(1, image.height / gridSize / 2)
        let boxed = boxAveraged(image, factorX, factorY)
        var resampler = Resampler(sourceWidth: boxed.width, sourceHeight: boxed.height, channels: 3,
                                  resizedWidth: gridSize, resizedHeight: gridSize,
                                  sourceExtent: (Double(image.width) / Double(factorX), Double(image.height) / Double(factorY)),
                                  boxPreShrink: false)
        boxed.pixels.withUnsafeBufferPointer { pixels in
            for row in 0..<boxed.height {
                resampler.push(UnsafeBufferPointer(rebasing: pixels[row * boxed.rowBytes..<(row + 1) * boxed.rowBytes]))
            }
        }
        return resampler.finish()
    }

    /// Means of `factorX × factorY` blocks of an RGB image (the last, partial blocks over the pixels they have).
    private static func boxAveraged(_ image: PixelBuffer, _ factorX: Int, _ factorY: Int) -> PixelBuffer {
        if factorX == 1 && factorY == 1 { return image }
        let width = (image.width + factorX - 1) / factorX, height = (image.height + factorY - 1) / factorY
        var sums = [Int](repeating: 0, count: width * height * 3)
        var counts = [Int](repeating: 0, count: width * height)
        image.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<image.height {
                for x in 0..<image.width {
                    let cell = (y / factorY) * width + x / factorX, pixel = (y * image.width + x) * 3
                    sums[cell * 3] += Int(pixels[pixel])
                    sums[cell * 3 + 1] += Int(pixels[pixel + 1])
                    sums[cell * 3 + 2] += Int(pixels[pixel + 2])
                    counts[cell] += 1
                }
            }
        }
        let means = sums.indices.map { UInt8((sums[$0] + counts[$0 / 3] / 2) / counts[$0 / 3]) }
        return PixelBuffer(width: width, height: height, channels: 3, pixels: means)
    }

    /// sRGB byte → linear light 0…1, once per value.
    private static let linear: [Double] = (0...255).map { value in
        let v = Double(value) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// CIE XYZ (D65) scaled so white's Y is 100.
    static func xyz(red: UInt8, green: UInt8, blue: UInt8) -> (x: Double, y: Double, z: Double) {
        let (r, g, b) = (linear[Int(red)], linear[Int(green)], linear[Int(blue)])
        return (100 * (0.4124 * r + 0.3576 * g + 0.1805 * b),
                100 * (0.2126 * r + 0.7152 * g + 0.0722 * b),
                100 * (0.0193 * r + 0.1192 * g + 0.9505 * b))
    }

    /// 100 for a colour in the skin direction, falling by 100 per unit of distance from it (negative for
    /// colours far from skin), whatever the brightness.
    static func skin(_ xyz: (x: Double, y: Double, z: Double)) -> Double {
        let length = (xyz.x * xyz.x + xyz.y * xyz.y + xyz.z * xyz.z).squareRoot()
        guard length > 0 else { return 0 }
        let distance = hypot(hypot(xyz.x / length - skinDirection.x, xyz.y / length - skinDirection.y),
                             xyz.z / length - skinDirection.z)
        return 100 - 100 * distance
    }

    /// CIE a*: positive for reds and magentas, negative for greens (libvips's "saturation" score).
    static func redGreen(_ xyz: (x: Double, y: Double, z: Double)) -> Double {
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        return 500 * (f(xyz.x / 95.047) - f(xyz.y / 100))
    }

    /// A separable Gaussian cut where it falls below a fifth of its peak, its weights rounded to twentieths of
    /// the peak, then normalised: libvips's default blur, copied so near-equal peaks fall the same way. Cells
    /// beyond the border repeat the border.
    static func blurred(_ values: [Double], size n: Int, sigma: Double) -> [Double] {
        let weights = GaussianKernel.libvips(sigma: sigma, minAmplitude: 0.2, maxRadius: n - 1)
        let radius = weights.count / 2
        var across = [Double](repeating: 0, count: n * n)
        for y in 0..<n {
            for x in 0..<n {
                var sum = 0.0
                for k in -radius...radius { sum += weights[k + radius] * values[y * n + min(max(x + k, 0), n - 1)] }
                across[y * n + x] = sum
            }
        }
        var result = [Double](repeating: 0, count: n * n)
        for y in 0..<n {
            for x in 0..<n {
                var sum = 0.0
                for k in -radius...radius { sum += weights[k + radius] * across[min(max(y + k, 0), n - 1) * n + x] }
                result[y * n + x] = sum
            }
        }
        return result
    }
}
