import Foundation

/// Precomputed, normalized Lanczos3 weights for one axis: for each output pixel, the first
/// contributing source index and `taps` weights (zero-padded so every row has equal length).
struct FilterWeights {
    static let lanczosRadius = 3.0

    let outputCount: Int
    let taps: Int
    /// First source index per output pixel.
    let starts: [Int]
    /// Number of source pixels actually used per output pixel (<= taps).
    let counts: [Int]
    /// `outputCount * taps` weights.
    let weights: [Float]

    /// Maps an axis of `sourceSize` pixels onto `resizedSize` pixels and keeps outputs
    /// `firstOutput ..< firstOutput + outputCount` (a crop window, for `cover`).
    /// `sourceExtent` is the length of the image on that axis in source pixels when it is not
    /// `sourceSize`: after a reduction by an integer factor whose last block is cut short (a box
    /// pre-shrink of 1976 rows by 6 gives 330 rows spanning 329.33), mapping onto the whole 330
    /// would stretch the image by up to a reduced pixel and shift the outputs (Pillow passes the
    /// same fractional box to resize after `reduce`).
    /// `sourceOffset` is where output 0's left edge falls in source pixels, for a window that starts between two
    /// source pixels (a region of a larger image).
    /// Pixel centres are aligned (`src = (dst + 0.5) * scale - 0.5`); when shrinking, the
    /// kernel is stretched by the scale so every source pixel contributes (anti-aliasing).
    /// Window limits and rounding follow Pillow's resample.c so results match it closely.
    init(sourceSize: Int, sourceExtent: Double? = nil, sourceOffset: Double = 0, resizedSize: Int, firstOutput: Int = 0,
         outputCount: Int? = nil) {
        let count = outputCount ?? resizedSize
        let scale = (sourceExtent ?? Double(sourceSize)) / Double(resizedSize)
        let filterScale = max(scale, 1)
        let support = Self.lanczosRadius * filterScale
        let taps = Self.taps(scale: scale)
        var starts = [Int](repeating: 0, count: count)
        var counts = [Int](repeating: 0, count: count)
        var weights = [Float](repeating: 0, count: count * taps)
        var kernel = [Double](repeating: 0, count: taps)
        for index in 0..<count {
            let center = sourceOffset + (Double(firstOutput + index) + 0.5) * scale
            let first = max(Int(center - support + 0.5), 0)
            let end = min(Int(center + support + 0.5), sourceSize)
            let used = min(max(end - first, 1), taps)
            var total = 0.0
            for k in 0..<used {
                let w = Self.lanczos3((Double(first + k) - center + 0.5) / filterScale)
                kernel[k] = w
                total += w
            }
            starts[index] = min(first, sourceSize - 1)
            counts[index] = used
            for k in 0..<used {
                weights[index * taps + k] = Float(total != 0 ? kernel[k] / total : (k == 0 ? 1 : 0))
            }
        }
        self.outputCount = count
        self.taps = taps
        self.starts = starts
        self.counts = counts
        self.weights = weights
    }

    /// Source pixels one output pixel reads at this scale (source / output): the kernel is stretched when
    /// shrinking. `scale` is a ratio of pixel counts of at most 65535 (the decoders' dimension limit).
    static func taps(scale: Double) -> Int {
        Int((lanczosRadius * max(scale, 1) * 2).rounded(.up)) + 1
    }

    static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        guard abs(x) < lanczosRadius else { return 0 }
        let px = Double.pi * x
        return lanczosRadius * sin(px) * sin(px / lanczosRadius) / (px * px)
    }

    /// Source indices that any output pixel reads.
    var sourceRange: Range<Int> {
        guard outputCount > 0 else { return 0..<0 }
        var low = Int.max, high = 0
        for i in 0..<outputCount {
            low = min(low, starts[i])
            high = max(high, starts[i] + counts[i])
        }
        return low..<high
    }
}
