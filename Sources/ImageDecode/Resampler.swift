/// Separable Lanczos3 resize that consumes the source one row at a time, so a decoder can
/// stream into it and the full-size image never has to exist in memory.
///
/// Each incoming row is filtered horizontally straight away into a narrow Float buffer
/// (source height x output width); `finish()` then filters that vertically. Alpha is
/// premultiplied while filtering so transparent pixels' colours cannot bleed into edges.
struct Resampler {
    let sourceWidth: Int
    let sourceHeight: Int
    let channels: Int
    private let horizontal: FilterWeights
    private let vertical: FilterWeights
    /// Source rows the vertical pass reads; others are skipped on arrival.
    private let neededRows: Range<Int>
    private var intermediate: [Float]
    private var floatRow: [Float]
    private var nextRow = 0
    /// Same size and no crop: rows are kept as they are. Filtering would be a no-op apart
    /// from premultiplication round-off, which would change colours under low alpha.
    private let isIdentity: Bool
    private var copied: [UInt8] = []

    /// Resizes `sourceWidth x sourceHeight` to `resizedWidth x resizedHeight`, keeping the
    /// window `crop` of the resized image (the whole of it when nil).
    init(sourceWidth: Int, sourceHeight: Int, channels: Int, resizedWidth: Int, resizedHeight: Int,
         crop: (x: Int, y: Int, width: Int, height: Int)? = nil) {
        let window = crop ?? (0, 0, resizedWidth, resizedHeight)
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.channels = channels
        horizontal = FilterWeights(sourceSize: sourceWidth, resizedSize: resizedWidth,
                                   firstOutput: window.x, outputCount: window.width)
        vertical = FilterWeights(sourceSize: sourceHeight, resizedSize: resizedHeight,
                                 firstOutput: window.y, outputCount: window.height)
        neededRows = vertical.sourceRange
        intermediate = [Float](repeating: 0, count: neededRows.count * window.width * channels)
        isIdentity = sourceWidth == resizedWidth && sourceHeight == resizedHeight
            && window.x == 0 && window.y == 0 && window.width == resizedWidth && window.height == resizedHeight
        floatRow = [Float](repeating: 0, count: isIdentity ? 0 : sourceWidth * channels)
        if isIdentity { intermediate = [] }
    }

    var outputWidth: Int { horizontal.outputCount }
    var outputHeight: Int { vertical.outputCount }

    /// Filters the next source row (`sourceWidth * channels` bytes) horizontally.
    mutating func push(_ row: UnsafeBufferPointer<UInt8>) {
        defer { nextRow += 1 }
        if isIdentity { return copied.append(contentsOf: row) }
        guard neededRows.contains(nextRow) else { return }
        let rowLength = outputWidth * channels
        let base = (nextRow - neededRows.lowerBound) * rowLength
        let channels = self.channels
        floatRow.withUnsafeMutableBufferPointer { floats in
            Self.loadPremultiplied(row, into: floats, channels: channels)
            intermediate.withUnsafeMutableBufferPointer { target in
                horizontal.weights.withUnsafeBufferPointer { weights in
                    Self.convolve(source: UnsafeBufferPointer(floats), stride: channels,
                                  target: UnsafeMutableBufferPointer(rebasing: target[base..<base + rowLength]),
                                  filter: horizontal, weights: weights, channels: channels)
                }
            }
        }
    }

    /// Runs the vertical pass and returns 8-bit straight-alpha pixels.
    func finish() -> PixelBuffer {
        precondition(nextRow == sourceHeight, "resampler received \(nextRow) of \(sourceHeight) rows")
        if isIdentity { return PixelBuffer(width: sourceWidth, height: sourceHeight, channels: channels, pixels: copied) }
        let rowLength = outputWidth * channels
        var output = [UInt8](repeating: 0, count: outputHeight * rowLength)
        var accumulator = [Float](repeating: 0, count: rowLength)
        intermediate.withUnsafeBufferPointer { rows in
            vertical.weights.withUnsafeBufferPointer { weights in
                accumulator.withUnsafeMutableBufferPointer { sum in
                    output.withUnsafeMutableBufferPointer { out in
                        for y in 0..<outputHeight {
                            sum.update(repeating: 0)
                            let first = vertical.starts[y] - neededRows.lowerBound
                            for k in 0..<vertical.counts[y] {
                                let w = weights[y * vertical.taps + k]
                                let row = (first + k) * rowLength
                                for i in 0..<rowLength { sum[i] += w * rows[row + i] }
                            }
                            Self.storeUnpremultiplied(UnsafeBufferPointer(sum),
                                                      into: UnsafeMutableBufferPointer(rebasing: out[y * rowLength..<(y + 1) * rowLength]),
                                                      channels: channels)
                        }
                    }
                }
            }
        }
        return PixelBuffer(width: outputWidth, height: outputHeight, channels: channels, pixels: output)
    }

    private static func loadPremultiplied(_ row: UnsafeBufferPointer<UInt8>, into floats: UnsafeMutableBufferPointer<Float>, channels: Int) {
        if channels == 4 {
            for x in 0..<(floats.count / 4) {
                let alpha = Float(row[x * 4 + 3])
                let factor = alpha / 255
                floats[x * 4] = Float(row[x * 4]) * factor
                floats[x * 4 + 1] = Float(row[x * 4 + 1]) * factor
                floats[x * 4 + 2] = Float(row[x * 4 + 2]) * factor
                floats[x * 4 + 3] = alpha
            }
        } else {
            for i in 0..<floats.count { floats[i] = Float(row[i]) }
        }
    }

    /// One horizontal pass over a row, specialised by channel count for the optimiser.
    private static func convolve(source: UnsafeBufferPointer<Float>, stride: Int,
                                 target: UnsafeMutableBufferPointer<Float>, filter: FilterWeights,
                                 weights: UnsafeBufferPointer<Float>, channels: Int) {
        let taps = filter.taps
        filter.starts.withUnsafeBufferPointer { starts in
            filter.counts.withUnsafeBufferPointer { counts in
                for x in 0..<filter.outputCount {
                    let w = UnsafeBufferPointer(rebasing: weights[x * taps..<x * taps + counts[x]])
                    var s = starts[x] * channels
                    if channels == 3 {
                        var r: Float = 0, g: Float = 0, b: Float = 0
                        for k in 0..<w.count {
                            r += w[k] * source[s]; g += w[k] * source[s + 1]; b += w[k] * source[s + 2]
                            s += 3
                        }
                        target[x * 3] = r; target[x * 3 + 1] = g; target[x * 3 + 2] = b
                    } else {
                        var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                        for k in 0..<w.count {
                            r += w[k] * source[s]; g += w[k] * source[s + 1]
                            b += w[k] * source[s + 2]; a += w[k] * source[s + 3]
                            s += 4
                        }
                        target[x * 4] = r; target[x * 4 + 1] = g; target[x * 4 + 2] = b; target[x * 4 + 3] = a
                    }
                }
            }
        }
    }

    private static func storeUnpremultiplied(_ sums: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<UInt8>, channels: Int) {
        if channels == 4 {
            for x in 0..<(sums.count / 4) {
                let alpha = clampToByte(sums[x * 4 + 3])
                let factor: Float = alpha == 0 ? 0 : 255 / Float(alpha)
                out[x * 4] = clampToByte(sums[x * 4] * factor)
                out[x * 4 + 1] = clampToByte(sums[x * 4 + 1] * factor)
                out[x * 4 + 2] = clampToByte(sums[x * 4 + 2] * factor)
                out[x * 4 + 3] = alpha
            }
        } else {
            for i in 0..<sums.count { out[i] = clampToByte(sums[i]) }
        }
    }

    @inline(__always)
    private static func clampToByte(_ value: Float) -> UInt8 {
        UInt8(min(max(value, 0), 255) + 0.5)
    }
}
