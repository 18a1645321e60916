import Foundation

/// libvips's "entropy" smart crop: while the window is larger than the crop, cut a strip off each axis that is
/// still too long, from whichever end has the lower Shannon entropy of its pixel values (summed over R, G and
/// B): flat sky or a plain wall goes, texture and detail stay. Strips are at most an eighth of the largest
/// excess, so any image takes about eight rounds.
struct EntropyTrimmer {
    private let image: PixelBuffer

    init(image: PixelBuffer) {
        self.image = image.premultipliedRGB()
    }

    func trim(toWidth cropWidth: Int, height cropHeight: Int) -> (x: Int, y: Int) {
        var (left, top, width, height) = (0, 0, image.width, image.height)
        let step = max((width - cropWidth + 7) / 8, (height - cropHeight + 7) / 8)
        while width > cropWidth || height > cropHeight {
            let stripWidth = min(width - cropWidth, step)
            if stripWidth > 0 {
                let leftScore = entropy(x: left, y: top, width: stripWidth, height: height)
                let rightScore = entropy(x: left + width - stripWidth, y: top, width: stripWidth, height: height)
                width -= stripWidth
                if leftScore < rightScore { left += stripWidth }
            }
            let stripHeight = min(height - cropHeight, step)
            if stripHeight > 0 {
                let topScore = entropy(x: left, y: top, width: width, height: stripHeight)
                let bottomScore = entropy(x: left, y: top + height - stripHeight, width: width, height: stripHeight)
                height -= stripHeight
                if topScore < bottomScore { top += stripHeight }
            }
        }
        return (left, top)
    }

    /// Sum over the colour channels of -Σ p·log2(p), p being each value's share of the window's pixels.
    func entropy(x: Int, y: Int, width: Int, height: Int) -> Double {
        var counts = [Int](repeating: 0, count: 3 * 256)
        image.pixels.withUnsafeBufferPointer { pixels in
            for row in y..<(y + height) {
                var i = (row * image.width + x) * 3
                for _ in 0..<width {
                    counts[Int(pixels[i])] += 1
                    counts[256 + Int(pixels[i + 1])] += 1
                    counts[512 + Int(pixels[i + 2])] += 1
                    i += 3
                }
            }
        }
        let total = Double(width * height)
        return counts.reduce(0.0) { sum, count in
            guard count > 0 else { return sum }
            let p = Double(count) / total
            return sum - p * log2(p)
        }
    }
}
