/// Separable Lanczos3 resize that consumes the source one row at a time, so a decoder can
/// stream into it and neither the full-size image nor a full-height intermediate exists.
///
/// Stages, all per incoming row:
/// 1. optional integer box pre-shrink (`BoxReducer`) when the reduction is large, leaving
///    Lanczos at least a 3x reduction (libvips' "shrink then reduce", Pillow's reducing_gap);
/// 2. horizontal Lanczos into a ring of Float rows, only as many as one output row needs;
/// 3. each output row is filtered vertically as soon as its last source row has arrived.
/// Alpha is premultiplied while filtering so transparent pixels' colours cannot bleed into edges.
struct Resampler {
    let sourceWidth: Int
    let sourceHeight: Int
    let channels: Int
    private var box: BoxReducer?
    private let horizontal: FilterWeights
    private let vertical: FilterWeights
    /// Filtered-source rows the vertical pass reads; others are dropped on arrival.
    private let neededRows: Range<Int>
    private let ringRows: Int
    private var ring: [Float]
    private var floatRow: [Float]
    private var sum: [Float]
    private var output: [UInt8]
    /// Next row index into the filtered stage (after any box shrink).
    private var nextRow = 0
    private var nextOutputRow = 0
    private var pushedRows = 0
    /// Same size and no crop: rows are kept as they are. Filtering would be a no-op apart
    /// from premultiplication round-off, which would change colours under low alpha.
    private let isIdentity: Bool

    /// Resizes `sourceWidth x sourceHeight` to `resizedWidth x resizedHeight`, keeping the
    /// window `crop` of the resized image (the whole of it when nil). `sourceExtent` is the size
    /// the source rows span when it is smaller than their pixel count: a decoder that reduced by
    /// an integer factor delivers a last, partial block (see `RowDecoder.decodedExtent`).
    /// `sourceOffset` is where the resized image's top-left corner falls in the source rows, in source pixels
    /// (0…1 for a region of a larger image whose edge falls between two pixels).
    /// `boxPreShrink: false` forces pure Lanczos (slower for large reductions; used to check the box stage).
    init(sourceWidth: Int, sourceHeight: Int, channels: Int, resizedWidth: Int, resizedHeight: Int,
         crop: (x: Int, y: Int, width: Int, height: Int)? = nil,
         sourceExtent: (width: Double, height: Double)? = nil, sourceOffset: (x: Double, y: Double) = (0, 0),
         boxPreShrink: Bool = true) {
        let window = crop ?? (0, 0, resizedWidth, resizedHeight)
        let extent = sourceExtent ?? (Double(sourceWidth), Double(sourceHeight))
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.channels = channels
        let factor = BoxReducer.factor(shrink: min(extent.width / Double(resizedWidth),
                                                   extent.height / Double(resizedHeight)))
        if factor > 1 && boxPreShrink {
            box = BoxReducer(width: sourceWidth, height: sourceHeight, channels: channels, factor: factor)
        }
        let filteredWidth = box?.outputWidth ?? sourceWidth
        let filteredHeight = box?.outputHeight ?? sourceHeight
        // Lanczos maps onto what the rows span, not onto their count: the box stage's last block
        // may be cut short, so 1976 rows reduced by 6 are 330 rows spanning 329.33.
        let boxFactor = Double(box?.factor ?? 1)
        horizontal = FilterWeights(sourceSize: filteredWidth, sourceExtent: extent.width / boxFactor,
                                   sourceOffset: sourceOffset.x / boxFactor, resizedSize: resizedWidth,
                                   firstOutput: window.x, outputCount: window.width)
        vertical = FilterWeights(sourceSize: filteredHeight, sourceExtent: extent.height / boxFactor,
                                 sourceOffset: sourceOffset.y / boxFactor, resizedSize: resizedHeight,
                                 firstOutput: window.y, outputCount: window.height)
        neededRows = vertical.sourceRange
        isIdentity = Self.keepsRows(sourceWidth: sourceWidth, sourceHeight: sourceHeight, resizedWidth: resizedWidth,
                                    resizedHeight: resizedHeight, crop: window, sourceOffset: sourceOffset)
        let rowLength = window.width * channels
        ringRows = isIdentity ? 0 : min(vertical.taps, neededRows.count)
        ring = [Float](repeating: 0, count: ringRows * rowLength)
        floatRow = [Float](repeating: 0, count: isIdentity ? 0 : filteredWidth * channels)
        sum = [Float](repeating: 0, count: isIdentity ? 0 : rowLength)
        output = []
        output.reserveCapacity(window.height * rowLength)
    }

    /// Same size, no offset and no crop: the rows come out as they went in (`RegionReader` then reads them straight
    /// into the upright image instead).
    static func keepsRows(sourceWidth: Int, sourceHeight: Int, resizedWidth: Int, resizedHeight: Int,
                          crop window: (x: Int, y: Int, width: Int, height: Int), sourceOffset: (x: Double, y: Double)) -> Bool {
        sourceWidth == resizedWidth && sourceHeight == resizedHeight && sourceOffset == (0, 0)
            && window.x == 0 && window.y == 0 && window.width == resizedWidth && window.height == resizedHeight
    }

    /// The bytes a resampler of this geometry holds besides its output: the box stage's sums and row, one
    /// float source row, and the ring of filtered rows the vertical pass reads (computed as `init` sizes them).
    static func workingMemory(sourceWidth: Int, sourceHeight: Int, channels: Int,
                              resizedWidth: Int, resizedHeight: Int, outputWidth: Int) -> Int {
        let factor = BoxReducer.factor(shrink: min(Double(sourceWidth) / Double(resizedWidth),
                                                   Double(sourceHeight) / Double(resizedHeight)))
        let filteredWidth = (sourceWidth + factor - 1) / factor
        let filteredHeight = (sourceHeight + factor - 1) / factor
        let box = factor > 1 ? filteredWidth * channels * (MemoryLayout<UInt64>.size + 1) : 0
        let taps = FilterWeights.taps(scale: Double(filteredHeight) / Double(resizedHeight))
        let floats = (filteredWidth + (taps + 2) * outputWidth) * channels * MemoryLayout<Float>.size
        // Filter weights: taps floats and two indices per output pixel, both axes.
        let weights = (taps * MemoryLayout<Float>.size + 2 * MemoryLayout<Int>.size) * (outputWidth + resizedHeight)
        return box + floats + weights
    }

    var outputWidth: Int { horizontal.outputCount }
    var outputHeight: Int { vertical.outputCount }

    /// Takes the next source row (`sourceWidth * channels` bytes).
    mutating func push(_ row: UnsafeBufferPointer<UInt8>) {
        pushedRows += 1
        if isIdentity { return output.append(contentsOf: row) }
        guard var reducer = box else { return filter(row) }
        box = nil  // avoid a copy-on-write of the reducer's buffers while it is mutated
        reducer.push(row) { reduced in filter(reduced) }
        box = reducer
    }

    /// Returns the resized 8-bit straight-alpha pixels once every source row has been pushed.
    func finish() -> PixelBuffer {
        precondition(pushedRows == sourceHeight, "resampler received \(pushedRows) of \(sourceHeight) rows")
        precondition(output.count == outputWidth * outputHeight * channels, "vertical pass incomplete")
        return PixelBuffer(width: outputWidth, height: outputHeight, channels: channels, pixels: output)
    }

    private mutating func filter(_ row: UnsafeBufferPointer<UInt8>) {
        defer { nextRow += 1 }
        guard neededRows.contains(nextRow) else { return }
        let rowLength = outputWidth * channels
        let base = (nextRow % ringRows) * rowLength
        let channels = self.channels
        let horizontal = self.horizontal
        floatRow.withUnsafeMutableBufferPointer { floats in
            Self.loadPremultiplied(row, into: floats, channels: channels)
            ring.withUnsafeMutableBufferPointer { target in
                horizontal.weights.withUnsafeBufferPointer { weights in
                    Self.convolve(source: UnsafeBufferPointer(floats),
                                  target: UnsafeMutableBufferPointer(rebasing: target[base..<base + rowLength]),
                                  filter: horizontal, weights: weights, channels: channels)
                }
            }
        }
        while nextOutputRow < outputHeight,
              vertical.starts[nextOutputRow] + vertical.counts[nextOutputRow] <= nextRow + 1 {
            emitOutputRow(nextOutputRow)
            nextOutputRow += 1
        }
    }

    /// Vertical filter for one output row; its source rows are all in the ring now.
    private mutating func emitOutputRow(_ y: Int) {
        let rowLength = outputWidth * channels
        let (first, count, taps, ringRows) = (vertical.starts[y], vertical.counts[y], vertical.taps, ringRows)
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: rowLength))
        let vertical = self.vertical
        let channels = self.channels
        ring.withUnsafeBufferPointer { rows in
            vertical.weights.withUnsafeBufferPointer { weights in
                sum.withUnsafeMutableBufferPointer { sum in
                    output.withUnsafeMutableBufferPointer { out in
                        sum.update(repeating: 0)
                        for k in 0..<count {
                            let row = rows.baseAddress! + ((first + k) % ringRows) * rowLength
                            Self.accumulate(weights[y * taps + k], times: row, into: sum.baseAddress!, count: rowLength)
                        }
                        Self.storeUnpremultiplied(UnsafeBufferPointer(sum),
                                                  into: UnsafeMutableBufferPointer(rebasing: out[start..<start + rowLength]),
                                                  channels: channels)
                    }
                }
            }
        }
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

    /// One horizontal pass over a row, specialised by channel count for the optimiser. Two output pixels at a time
    /// where they have as many taps: their sums do not depend on each other, so the processor overlaps them (one
    /// pixel's sum is a chain of dependent adds). Each pixel's sum is the same multiplies and adds, in the same order,
    /// as one pixel at a time: bit-identical (docs/benchmarks.md, "Resampler vectors").
    private static func convolve(source: UnsafeBufferPointer<Float>, target: UnsafeMutableBufferPointer<Float>,
                                 filter: FilterWeights, weights: UnsafeBufferPointer<Float>, channels: Int) {
        guard let source = source.baseAddress, let target = target.baseAddress, let weights = weights.baseAddress else { return }
        let (taps, outputCount) = (filter.taps, filter.outputCount)
        filter.starts.withUnsafeBufferPointer { starts in
            filter.counts.withUnsafeBufferPointer { counts in
                var x = 0
                while x < outputCount {
                    let count = counts[x], w = weights + x * taps, p = source + starts[x] * channels
                    let paired = x + 1 < outputCount && counts[x + 1] == count
                    if channels == 3 {
                        let (first, second) = paired ? sums3(w, p, w + taps, source + starts[x + 1] * 3, count)
                                                     : sums3(w, p, w, p, count)
                        let pixels = target + x * 3
                        (pixels[0], pixels[1], pixels[2]) = first
                        if paired { (pixels[3], pixels[4], pixels[5]) = second }
                    } else {
                        let pixels = UnsafeMutableRawPointer(target + x * 4)
                        if paired {
                            let (first, second) = sums4(w, p, w + taps, source + starts[x + 1] * 4, count)
                            pixels.storeBytes(of: first, as: SIMD4<Float>.self)
                            pixels.storeBytes(of: second, toByteOffset: 16, as: SIMD4<Float>.self)
                        } else {
                            pixels.storeBytes(of: sums4(w, p, w, p, count).0, as: SIMD4<Float>.self)
                        }
                    }
                    x += paired ? 2 : 1
                }
            }
        }
    }

    /// The weighted sums of two RGB pixels' taps (`v`, `q` may repeat `w`, `p` for one pixel).
    @inline(__always)
    private static func sums3(_ w: UnsafePointer<Float>, _ p: UnsafePointer<Float>, _ v: UnsafePointer<Float>,
                              _ q: UnsafePointer<Float>, _ count: Int) -> ((Float, Float, Float), (Float, Float, Float)) {
        var (r0, g0, b0, r1, g1, b1): (Float, Float, Float, Float, Float, Float) = (0, 0, 0, 0, 0, 0)
        for k in 0..<count {
            let a = p + 3 * k, b = q + 3 * k
            r0 += w[k] * a[0]; g0 += w[k] * a[1]; b0 += w[k] * a[2]
            r1 += v[k] * b[0]; g1 += v[k] * b[1]; b1 += v[k] * b[2]
        }
        return ((r0, g0, b0), (r1, g1, b1))
    }

    /// The weighted sums of two RGBA pixels' taps, a pixel's four channels as one vector.
    @inline(__always)
    private static func sums4(_ w: UnsafePointer<Float>, _ p: UnsafePointer<Float>, _ v: UnsafePointer<Float>,
                              _ q: UnsafePointer<Float>, _ count: Int) -> (SIMD4<Float>, SIMD4<Float>) {
        var first = SIMD4<Float>(), second = SIMD4<Float>()
        let a = UnsafeRawPointer(p), b = UnsafeRawPointer(q)
        for k in 0..<count {
            first += SIMD4(repeating: w[k]) * a.loadUnaligned(fromByteOffset: 16 * k, as: SIMD4<Float>.self)
            second += SIMD4(repeating: v[k]) * b.loadUnaligned(fromByteOffset: 16 * k, as: SIMD4<Float>.self)
        }
        return (first, second)
    }

    /// `sum[i] += weight * row[i]` for `count` floats, eight at a time. The optimiser left the plain loop scalar (it
    /// cannot tell the two buffers apart); each lane is the same multiply then add, in the same order, so the sums are
    /// bit-identical to it. The vertical pass took a quarter of the time it did (docs/benchmarks.md, "Resampler vectors").
    @inline(__always)
    private static func accumulate(_ weight: Float, times row: UnsafePointer<Float>, into sum: UnsafeMutablePointer<Float>,
                                   count: Int) {
        let weights = SIMD8<Float>(repeating: weight)
        let source = UnsafeRawPointer(row), target = UnsafeMutableRawPointer(sum)
        var i = 0
        while i + 8 <= count {
            let total = target.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                + weights * source.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            target.storeBytes(of: total, toByteOffset: i * 4, as: SIMD8<Float>.self)
            i += 8
        }
        while i < count {
            sum[i] += weight * row[i]
            i += 1
        }
    }

    private static func storeUnpremultiplied(_ sums: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<UInt8>, channels: Int) {
        if channels == 4 {
            for x in 0..<(sums.count / 4) {
                // Divide by the unrounded alpha: at alpha near zero, rounding it first would
                // visibly shift the colour of faint edge pixels.
                let exactAlpha = sums[x * 4 + 3]
                let alpha = clampToByte(exactAlpha)
                let factor: Float = alpha == 0 ? 0 : 255 / exactAlpha
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
