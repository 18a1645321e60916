import Processing

/// Mean SSIM (Wang et al. 2004) of two same-sized images: on BT.601 luma, and on alpha when either has it
/// (the lower of the two), over 8×8 windows at a stride of 4. It says how far a golden rendition moved when
/// its pixels are no longer identical, so a small, explained change can be told from a broken one.
enum SSIM {
    static let window = 8, stride = 4
    private static let c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255)

    /// nil when the sizes differ: no similarity is meaningful then.
    static func index(_ a: PixelBuffer, _ b: PixelBuffer) -> Double? {
        guard a.width == b.width, a.height == b.height, a.width > 0, a.height > 0 else { return nil }
        let luma = mean(plane(a, luma: true), plane(b, luma: true), width: a.width, height: a.height)
        guard hasAlpha(a) || hasAlpha(b) else { return luma }
        return min(luma, mean(plane(a, luma: false), plane(b, luma: false), width: a.width, height: a.height))
    }

    private static func hasAlpha(_ image: PixelBuffer) -> Bool { image.channels == 2 || image.channels == 4 }

    /// Luma (Y = 0.299 R + 0.587 G + 0.114 B; grey as is) or alpha (255 where there is none).
    private static func plane(_ image: PixelBuffer, luma: Bool) -> [Double] {
        let n = image.channels
        return (0..<(image.width * image.height)).map { i in
            let p = i * n
            guard luma else { return hasAlpha(image) ? Double(image.pixels[p + n - 1]) : 255 }
            if n < 3 { return Double(image.pixels[p]) }
            return 0.299 * Double(image.pixels[p]) + 0.587 * Double(image.pixels[p + 1]) + 0.114 * Double(image.pixels[p + 2])
        }
    }

    /// Windows clipped to the image, so a thumbnail narrower than 8 pixels is still compared.
    private static func mean(_ x: [Double], _ y: [Double], width: Int, height: Int) -> Double {
        let w = min(window, width), h = min(window, height)
        var total = 0.0, count = 0
        for top in starts(height, h) {
            for left in starts(width, w) {
                var sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0
                for row in top..<(top + h) {
                    for i in (row * width + left)..<(row * width + left + w) {
                        sx += x[i]; sy += y[i]; sxx += x[i] * x[i]; syy += y[i] * y[i]; sxy += x[i] * y[i]
                    }
                }
                let n = Double(w * h), mx = sx / n, my = sy / n
                let vx = sxx / n - mx * mx, vy = syy / n - my * my, cov = sxy / n - mx * my
                total += (2 * mx * my + c1) * (2 * cov + c2) / ((mx * mx + my * my + c1) * (vx + vy + c2))
                count += 1
            }
        }
        return total / Double(count)
    }

    /// Window origins every `stride`, plus one flush with the far edge so no border row goes unseen.
    private static func starts(_ extent: Int, _ size: Int) -> [Int] {
        var origins = Array(Swift.stride(from: 0, through: extent - size, by: stride))
        if origins.last != extent - size { origins.append(extent - size) }
        return origins
    }
}
