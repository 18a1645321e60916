/// Reads one rectangle of an image, given in a plan's upright source pixels, resized to a given size and
/// made upright: the renderer's decode stage. Only the rows and columns of the rectangle reach the resizer,
/// and decoders that can reduce while decoding (JPEG) do so down to the detail the output needs.
struct RegionReader {
    /// A rectangle in the plan's upright source pixels (after `rotate`) and the size it is resized to.
    struct Reading {
        var region: ProcessingPlan.SourceRegion
        var width: Int
        var height: Int
    }

    /// What is read: an encoded image, or one composited frame of an animation (`PlanRenderer.renderAnimation`).
    enum Input {
        case encoded(EncodedImage)
        /// Checked against the animation's limits already (`AnimationDecoder.checkPixels`), not `maxPixels` again.
        case frame(FrameRowDecoder)
    }

    let input: Input
    /// What follows the EXIF orientation: `rotate`, then `flip` (`Orientation(_: GeometryOptions)`).
    let transform: Orientation
    /// The part of the stored image the plan is made against (`trim`), in stored pixels; nil: all of it.
    var bounds: ProcessingPlan.Rect? = nil
    let autoRotate: Bool
    let limits: RenderLimits
    let convertToSRGB: Bool
    /// Checked at each row the decoder hands out.
    var cancellation: RenderCancellation? = nil

    /// `plan` is what the reading was made from: its source size is the size the plan was made for; the input may
    /// be smaller (a stored copy), and the region is scaled to it. The working memory, with `extra` (the renderer's
    /// outputs for the source's channel count), is checked on the decoder that reads, before it allocates: one open
    /// of the input, not two.
    func read(_ reading: Reading, plan: ProcessingPlan,
              extra: (_ source: ImageInfo) -> Int) throws(ImageDecodeError) -> PixelBuffer {
        try withDecoder(maxMemory: limits.maxDecodeMemory) { decoder throws(ImageDecodeError) in
            let geometry = StoredGeometry(decoder, reader: self, reading: reading,
                                          planSourceWidth: plan.sourceWidth, planSourceHeight: plan.sourceHeight)
            _ = try checkedWorkingMemory(decoder, geometry: geometry, extra: extra)
            let decoded = try decoder.start(shrink: geometry.shrink, convertToSRGB: convertToSRGB)
            let extent = decoder.decodedExtent ?? (Double(decoded.width), Double(decoded.height))
            let (columns, rows) = windows(geometry, info: decoder.info, decodedWidth: decoded.width,
                                          decodedHeight: decoded.height, extent: extent)
            if Self.keepsPixels(columns, rows) {
                return try readUpright(decoder, columns: columns, rows: rows, channels: decoded.channels,
                                       orientation: geometry.orientation)
            }
            var resampler = Resampler(sourceWidth: columns.count, sourceHeight: rows.count, channels: decoded.channels,
                                      resizedWidth: columns.resized, resizedHeight: rows.resized,
                                      crop: (columns.firstOutput, rows.firstOutput, geometry.width, geometry.height),
                                      sourceExtent: (columns.extent, rows.extent),
                                      sourceOffset: (columns.offset, rows.offset))
            let channels = decoded.channels
            var y = 0
            try decoder.readRows { (row) throws(ImageDecodeError) in
                try cancellation.check()
                defer { y += 1 }
                guard y >= rows.origin && y < rows.origin + rows.count else { return }
                resampler.push(UnsafeBufferPointer(rebasing: row[columns.origin * channels..<(columns.origin + columns.count) * channels]))
            }
            var resized = resampler.finish()
            // RGB profiles are applied to the small image, as libvips does outside linear mode.
            if convertToSRGB { decoder.rowProfile?.rgbTransform(channels: resized.channels)?.convert(&resized) }
            return geometry.orientation.apply(to: resized)
        }
    }

    /// A read that keeps the stored pixels (a full-size render, whatever its orientation): each row goes to its
    /// upright place as it is decoded, through the profile on the way when one applies (per pixel, so the same
    /// values as converting the whole image). One image is made, and no copy of it.
    private func readUpright(_ decoder: any RowDecoder, columns: Window, rows: Window, channels: Int,
                             orientation: Orientation) throws(ImageDecodeError) -> PixelBuffer {
        let writer = UprightRowWriter(orientation: orientation, storedWidth: columns.count, storedHeight: rows.count,
                                      channels: channels)
        let transform = convertToSRGB ? decoder.rowProfile?.rgbTransform(channels: channels) : nil
        let rowLength = columns.count * channels
        let converted = UnsafeMutablePointer<UInt8>.allocate(capacity: transform == nil ? 0 : rowLength)
        defer { converted.deallocate() }
        var failure: ImageDecodeError?
        let pixels = [UInt8](unsafeUninitializedCapacity: rowLength * rows.count) { image, initialized in
            let base = image.baseAddress!
            var y = 0
            do throws(ImageDecodeError) {
                try decoder.readRows { (row) throws(ImageDecodeError) in
                    try cancellation.check()
                    defer { y += 1 }
                    guard y >= rows.origin && y < rows.origin + rows.count else { return }
                    let stored = row.baseAddress! + columns.origin * channels
                    if let transform {
                        transform.convert(stored, into: converted, count: columns.count)
                        writer.write(converted, storedRow: y - rows.origin, into: base)
                    } else {
                        writer.write(stored, storedRow: y - rows.origin, into: base)
                    }
                }
                initialized = image.count
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return PixelBuffer(width: writer.uprightWidth, height: writer.uprightHeight, channels: channels, pixels: pixels)
    }

    /// The decoded rows and columns a reading takes, from the decoder's output size and extent.
    private func windows(_ geometry: StoredGeometry, info: ImageInfo, decodedWidth: Int, decodedHeight: Int,
                         extent: (width: Double, height: Double)) -> (columns: Window, rows: Window) {
        let perX = extent.width / Double(info.width), perY = extent.height / Double(info.height)
        // The source's extent in decoded pixels: all of them, or the trimmed rectangle's.
        let stored = geometry.stored
        let (left, right) = bounds == nil ? (0, Double(decodedWidth))
            : (Double(stored.x) * perX, Double(stored.x + stored.width) * perX)
        let (top, bottom) = bounds == nil ? (0, Double(decodedHeight))
            : (Double(stored.y) * perY, Double(stored.y + stored.height) * perY)
        let columns = Window(start: geometry.region.x * perX, length: geometry.region.width * perX, output: geometry.width,
                             lower: left, upper: right, available: decodedWidth)
        let rows = Window(start: geometry.region.y * perY, length: geometry.region.height * perY, output: geometry.height,
                          lower: top, upper: bottom, available: decodedHeight)
        return (columns, rows)
    }

    /// Whether the resizer would keep these windows' pixels as they are (`Resampler.keepsRows`): then they are read
    /// straight into the upright image instead.
    private static func keepsPixels(_ columns: Window, _ rows: Window) -> Bool {
        Resampler.keepsRows(sourceWidth: columns.count, sourceHeight: rows.count, resizedWidth: columns.resized,
                            resizedHeight: rows.resized,
                            crop: (columns.firstOutput, rows.firstOutput, columns.output, rows.output),
                            sourceOffset: (columns.offset, rows.offset))
    }

    /// The decoder's own buffers and the resizer's for this reading, plus `extra` (the renderer's outputs for the
    /// source's channel count); over `limits.maxDecodeMemory` it throws.
    func checkedWorkingMemory(_ reading: Reading, plan: ProcessingPlan,
                              extra: (_ source: ImageInfo) -> Int) throws(ImageDecodeError) -> Int {
        try withDecoder(maxMemory: .max) { decoder throws(ImageDecodeError) in
            let geometry = StoredGeometry(decoder, reader: self, reading: reading,
                                          planSourceWidth: plan.sourceWidth, planSourceHeight: plan.sourceHeight)
            return try checkedWorkingMemory(decoder, geometry: geometry, extra: extra)
        }
    }

    /// The input's decoder, its header checked against the pixel limit.
    private func withDecoder<Result>(maxMemory: Int, _ body: (any RowDecoder) throws(ImageDecodeError) -> Result)
        throws(ImageDecodeError) -> Result {
        switch input {
        case .encoded(let image):
            try ImageDecoder.withDecoder(for: image, maxPixels: limits.maxPixels, maxMemory: maxMemory,
                                         threads: limits.decodeThreads, body)
        case .frame(let frame):
            try ImageDecoder.run(frame, maxPixels: .max, body)
        }
    }

    /// The one estimate, from `decoder`'s header (`read` and `checkedWorkingMemory(_:plan:extra:)` agree by using it):
    /// the decoder's buffers, then either the image read straight upright (a reading that keeps the stored pixels:
    /// at `shrink` 1 every decoder delivers them all) or the resizer, its output and that output's sRGB and upright
    /// copies; and `extra`.
    private func checkedWorkingMemory(_ decoder: any RowDecoder, geometry: StoredGeometry,
                                      extra: (_ source: ImageInfo) -> Int) throws(ImageDecodeError) -> Int {
        let info = decoder.info
        let channels = info.hasAlpha ? 4 : 3
        let image = geometry.width * geometry.height * channels
        let reading: Int
        let full = windows(geometry, info: info, decodedWidth: info.width, decodedHeight: info.height,
                           extent: (Double(info.width), Double(info.height)))
        if geometry.shrink == 1 && Self.keepsPixels(full.columns, full.rows) {
            reading = image + geometry.width * channels  // and one converted row
        } else {
            // The resizer is sized for the full-resolution window: decoders that reduce while decoding only shrink it;
            // one that draws enlarged (`drawsAtAnyScale`) gives it that many more.
            // Counted in Double and kept within 1...2^26 a side (the cap for anything not finite) before becoming
            // an Int: no plan's scale can trap here or in the resizer's estimate.
            let enlarged = geometry.shrink > 0 ? 1 / min(1, geometry.shrink) : 1
            func side(_ whole: Int, _ region: Double) -> Int {
                let side = min(Double(whole) * enlarged, region * enlarged + 1).rounded(.up)
                return side.isFinite ? Int(max(1, min(side, Double(1 << 26)))) : 1 << 26
            }
            let columns = side(info.width, geometry.region.width), rows = side(info.height, geometry.region.height)
            reading = Resampler.workingMemory(sourceWidth: max(1, columns), sourceHeight: max(1, rows),
                                              channels: channels, resizedWidth: geometry.width,
                                              resizedHeight: geometry.height, outputWidth: geometry.width) + 3 * image
        }
        let needed = decoder.workingMemory(shrink: geometry.shrink) + reading + extra(info)
        guard needed <= limits.maxDecodeMemory else {
            throw .overMemoryBudget(needed: needed, limit: limits.maxDecodeMemory)
        }
        return needed
    }

    /// A reading expressed in the stored image's pixels and orientation.
    private struct StoredGeometry {
        /// Stored pixels to upright-and-rotated: EXIF orientation (when auto-rotating), then `rotate` and `flip`.
        let orientation: Orientation
        /// The stored pixels the plan's source is (`bounds`, else the whole image): no filter reads outside them.
        let stored: ProcessingPlan.Rect
        let region: ProcessingPlan.SourceRegion
        /// The resized size, in stored orientation.
        let width: Int
        let height: Int

        /// Whether the decoder may be asked to enlarge (`RowDecoder.drawsAtAnyScale`).
        let drawsAtAnyScale: Bool

        init(_ decoder: any RowDecoder, reader: RegionReader, reading: Reading, planSourceWidth: Int, planSourceHeight: Int) {
            let info = decoder.info
            drawsAtAnyScale = decoder.drawsAtAnyScale
            let exif = reader.autoRotate ? info.orientation : .identity
            orientation = exif.followed(by: reader.transform)
            stored = reader.bounds ?? ProcessingPlan.Rect(x: 0, y: 0, width: info.width, height: info.height)
            let (storedWidth, storedHeight) = (Double(stored.width), Double(stored.height))
            let (inputWidth, inputHeight) = orientation.swapsAxes ? (storedHeight, storedWidth) : (storedWidth, storedHeight)
            let scaleX = inputWidth / Double(planSourceWidth), scaleY = inputHeight / Double(planSourceHeight)
            let r = reading.region
            var region = orientation.storedRegion(of: .init(x: r.x * scaleX, y: r.y * scaleY, width: r.width * scaleX,
                                                            height: r.height * scaleY),
                                                  storedWidth: storedWidth, storedHeight: storedHeight)
            (region.x, region.y) = (region.x + Double(stored.x), region.y + Double(stored.y))
            self.region = region
            (width, height) = orientation.swapsAxes ? (reading.height, reading.width) : (reading.width, reading.height)
        }

        /// How much the less-reduced axis shrinks: a decoder may reduce by up to this; only one that draws at any
        /// scale is asked to enlarge (below 1), so the less-reduced axis is drawn at its full detail.
        var shrink: Double {
            let shrink = min(region.width / Double(width), region.height / Double(height))
            return drawsAtAnyScale ? shrink : max(1, shrink)
        }
    }

    /// One axis of the window in decoded pixels: the region plus a margin of up to `margin` output pixels each
    /// side (where the image has them), so the filter at the region's edges sees the pixels just outside it, as
    /// it would resizing the whole image; the resizer then keeps outputs `firstOutput ..< firstOutput + output`
    /// of `resized`. Whole pixels from `origin`; the window starts `offset` (0…1) into the first and spans `extent`.
    /// `lower`…`upper` is the source's extent (a trimmed source is part of the decoded image): no margin reaches
    /// past it, as imgproxy resizes the trimmed image alone.
    private struct Window {
        /// Lanczos3 reaches 3 output pixels when shrinking (fewer when enlarging); one more for rounding.
        static let margin = 4

        let origin: Int
        let count: Int
        /// The pixels kept of the resized window (`resized` less the margins).
        let output: Int
        let offset: Double
        let extent: Double
        let resized: Int
        let firstOutput: Int

        init(start: Double, length: Double, output: Int, lower: Double, upper: Double, available: Int) {
            let perOutput = length / Double(output)
            let before = perOutput > 0 ? Int(min(Double(Self.margin), max(0, start - lower) / perOutput)) : 0
            let after = perOutput > 0 ? Int(min(Double(Self.margin), max(0, upper - start - length) / perOutput)) : 0
            let first = start - Double(before) * perOutput
            let span = length + Double(before + after) * perOutput
            origin = min(max(max(0, Int(lower.rounded(.down))), Int(first.rounded(.down))), available - 1)
            offset = min(max(0, first - Double(origin)), 1)
            let end = min(available, Int(upper.rounded(.up)), Int((first + span).rounded(.up)))
            count = max(1, end - origin)
            extent = max(min(span, Double(count) - offset), 1e-9)
            resized = output + before + after
            firstOutput = before
            self.output = output
        }
    }
}
