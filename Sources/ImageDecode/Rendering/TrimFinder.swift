/// Finds what imgproxy's `trim` keeps (processing/trim.go and vips/vips.c's `vips_trim`, over libvips's `find_trim`):
/// the source in sRGB, transparency flattened onto magenta, each band smoothed by a 3×3 median (edges repeated), and
/// the bounding box of the pixels that differ from the colour by more than the threshold in any band. `equal_hor` and
/// `equal_ver` then cut the same border from both sides: the smaller one.
///
/// Cost: one more decode of the source, at full size (imgproxy also trims before shrink-on-load), streamed: only three
/// rows are held. Rows above and below the content are read whole; a row of content only up to its first differing
/// pixel from the left and to the known right edge from the right, so a photo with a border costs little past its decode.
public enum TrimFinder {
    /// The rectangle of the stored image (before EXIF orientation) that is kept; nil when nothing is trimmed: every
    /// pixel is border (imgproxy keeps the image then) or no pixel is. An animation is trimmed by its first frame, the
    /// still it gives; one kept animated is never trimmed (`ProcessingOptions.trimBounds(animated:)`, as imgproxy).
    public static func bounds(of input: EncodedImage, options: TrimOptions, limits: RenderLimits = RenderLimits(),
                              cancellation: RenderCancellation? = nil) throws(ImageDecodeError) -> ProcessingPlan.Rect? {
        try ImageDecoder.withDecoder(for: input, maxPixels: limits.maxPixels, maxMemory: limits.maxDecodeMemory,
                                     threads: limits.decodeThreads) {
            decoder throws(ImageDecodeError) in
            let needed = workingMemory(decoder)
            guard needed <= limits.maxDecodeMemory else {
                throw .overMemoryBudget(needed: needed, limit: limits.maxDecodeMemory)
            }
            let (width, height, channels) = try decoder.start(shrink: 1, convertToSRGB: true)
            let transform = decoder.rowProfile?.rgbTransform(channels: channels)
            var scan = Scan(width: width, threshold: options.threshold, color: options.color)
            var converted = [UInt8](repeating: 0, count: transform == nil ? 0 : width * channels)
            try decoder.readRows { (row) throws(ImageDecodeError) in
                try cancellation.check()
                if let transform, let source = row.baseAddress {
                    converted.withUnsafeMutableBufferPointer { transform.convert(source, into: $0.baseAddress!, count: width) }
                    converted.withUnsafeBufferPointer { scan.push($0, channels: channels) }
                } else {
                    scan.push(row, channels: channels)
                }
            }
            guard let found = scan.finish(height: height) else { return nil }
            let kept = equalised(found, width: width, height: height, options: options)
            let whole = ProcessingPlan.Rect(x: 0, y: 0, width: width, height: height)
            return kept == whole || kept.width <= 0 || kept.height <= 0 ? nil : kept
        }
    }

    /// What `bounds` holds: the decoder's buffers at full size and the scan's rows, from the header.
    public static func workingMemory(for input: EncodedImage, limits: RenderLimits = RenderLimits()) throws(ImageDecodeError) -> Int {
        try ImageDecoder.withDecoder(for: input, maxPixels: limits.maxPixels, threads: limits.decodeThreads) {
            decoder throws(ImageDecodeError) in
            workingMemory(decoder)
        }
    }

    static func workingMemory(_ decoder: any RowDecoder) -> Int {
        decoder.workingMemory(shrink: 1) + 4 * decoder.info.width * 4
    }

    /// imgproxy's `equal_hor`/`equal_ver`: the larger border shrinks to the smaller.
    static func equalised(_ rect: ProcessingPlan.Rect, width: Int, height: Int, options: TrimOptions) -> ProcessingPlan.Rect {
        var rect = rect
        if options.equalHorizontal {
            let right = width - rect.x - rect.width
            if right > rect.x { rect.width += right - rect.x } else if right < rect.x { rect.width += rect.x - right; rect.x = right }
        }
        if options.equalVertical {
            let bottom = height - rect.y - rect.height
            if bottom > rect.y { rect.height += bottom - rect.y } else if bottom < rect.y { rect.height += rect.y - bottom; rect.y = bottom }
        }
        return rect
    }

    /// The bounding box, row by row: a row is judged once the row below it has arrived (the median needs it).
    struct Scan {
        let width: Int
        let threshold: Double
        /// R, G, B of the border; from the first row's first pixel when not given.
        var background: [Int]?
        /// The last three rows as RGB, row `k` in `rows[k % 3]`.
        var rows: [[UInt8]]
        var received = 0
        var minX = Int.max, maxX = -1, minY = -1, maxY = -1

        init(width: Int, threshold: Double, color: RGBColor?) {
            (self.width, self.threshold) = (width, threshold)
            background = color.map { [Int($0.red), Int($0.green), Int($0.blue)] }
            rows = Array(repeating: [UInt8](repeating: 0, count: width * 3), count: 3)
        }

        /// One decoded row of 3 or 4 channels; alpha is flattened onto magenta, as imgproxy does before `find_trim`.
        mutating func push(_ row: UnsafeBufferPointer<UInt8>, channels: Int) {
            let slot = received % 3
            rows[slot].withUnsafeMutableBufferPointer { rgb in
                for x in 0..<width {
                    let from = x * channels
                    if channels == 4 {
                        let alpha = Int(row[from + 3])
                        for (c, magenta) in [255, 0, 255].enumerated() {
                            rgb[x * 3 + c] = UInt8((Int(row[from + c]) * alpha + magenta * (255 - alpha) + 127) / 255)
                        }
                    } else {
                        rgb[x * 3] = row[from]; rgb[x * 3 + 1] = row[from + 1]; rgb[x * 3 + 2] = row[from + 2]
                    }
                }
            }
            if background == nil { background = rows[slot][0..<3].map(Int.init) }
            received += 1
            if received >= 2 { judge(row: received - 2, below: received - 1) }
        }

        /// The box once every row has arrived; nil when no pixel differs.
        mutating func finish(height: Int) -> ProcessingPlan.Rect? {
            if received > 0 { judge(row: received - 1, below: received - 1) }
            guard minY >= 0 else { return nil }
            return ProcessingPlan.Rect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
        }

        private mutating func judge(row y: Int, below: Int) {
            let above = rows[max(0, y - 1) % 3], middle = rows[y % 3], under = rows[below % 3]
            let background = self.background ?? [0, 0, 0]
            func differs(_ x: Int) -> Bool {
                let left = max(0, x - 1) * 3, centre = x * 3, right = min(width - 1, x + 1) * 3
                for c in 0..<3 {
                    let median = Self.median(above[left + c], above[centre + c], above[right + c],
                                             middle[left + c], middle[centre + c], middle[right + c],
                                             under[left + c], under[centre + c], under[right + c])
                    if Double(abs(Int(median) - background[c])) > threshold { return true }
                }
                return false
            }
            guard let first = (0..<width).first(where: differs) else { return }
            if minY < 0 { minY = y }
            maxY = y
            minX = min(minX, first)
            // Only columns right of what is known can move the right edge.
            let known = max(first, maxX)
            var x = width - 1
            while x > known && !differs(x) { x -= 1 }
            maxX = max(maxX, x)
        }

        /// The median of nine values by a fixed exchange network (19 compare-and-swaps).
        static func median(_ a0: UInt8, _ a1: UInt8, _ a2: UInt8, _ a3: UInt8, _ a4: UInt8, _ a5: UInt8,
                           _ a6: UInt8, _ a7: UInt8, _ a8: UInt8) -> UInt8 {
            var (p0, p1, p2, p3, p4, p5, p6, p7, p8) = (a0, a1, a2, a3, a4, a5, a6, a7, a8)
            func order(_ a: inout UInt8, _ b: inout UInt8) { if a > b { swap(&a, &b) } }
            order(&p1, &p2); order(&p4, &p5); order(&p7, &p8)
            order(&p0, &p1); order(&p3, &p4); order(&p6, &p7)
            order(&p1, &p2); order(&p4, &p5); order(&p7, &p8)
            order(&p0, &p3); order(&p5, &p8); order(&p4, &p7)
            order(&p3, &p6); order(&p1, &p4); order(&p2, &p5)
            order(&p4, &p7); order(&p4, &p2); order(&p6, &p4)
            order(&p4, &p2)
            return p4
        }
    }
}
