/// imgproxy's watermark step (processing/watermark.go), the last of its pipeline: the watermark is scaled (`scale`:
/// fitted in that fraction of the result, enlarged if needed), padded by the offsets when replicated, placed by its
/// position (allowed to overflow the edges) or tiled from the centre, its alpha multiplied by the opacity, and
/// composited over the result (libvips's `composite2`, mode over), in place: only the pixels it covers are written
/// (a full-size result is not copied). A result without alpha stays without.
enum WatermarkComposite {
    static func apply(_ watermark: RenderEffects.Watermark, to image: inout PixelBuffer, dprScale: Double) {
        let options = watermark.options
        let opacity = min(1, max(0, options.opacity * watermark.image.opacity))
        guard opacity > 0, image.width > 0, image.height > 0 else { return }
        let tile = scaled(watermark.image.pixels, options: options, width: image.width, height: image.height)
        switch options.position {
        case .replicate:
            // The offsets are the space between copies, split around each (watermark.go's padding), here only in
            // the arithmetic: a tile is the watermark with its share of space on each side.
            let padX = min(1 << 31, max(0, offset(options.x, side: image.width, dprScale: dprScale)))
            let padY = min(1 << 31, max(0, offset(options.y, side: image.height, dprScale: dprScale)))
            let (tileWidth, tileHeight) = (tile.width + padX, tile.height + padY)
            // Tiles in odd numbers across and down, the middle one centred (vips_replicate_go, centred).
            var across = (image.width + tileWidth - 1) / tileWidth, down = (image.height + tileHeight - 1) / tileHeight
            if across % 2 == 0 { across += 1 }
            if down % 2 == 0 { down += 1 }
            let left = (across * tileWidth - image.width) / 2 - padX / 2
            let top = (down * tileHeight - image.height) / 2 - padY / 2
            let mark = tile
            composite(tile, over: &image, opacity: opacity, columns: 0..<image.width, rows: 0..<image.height) { x, y in
                let tx = ((x + left) % tileWidth + tileWidth) % tileWidth, ty = ((y + top) % tileHeight + tileHeight) % tileHeight
                return tx < mark.width && ty < mark.height ? (tx, ty) : nil
            }
        case .compass(let point):
            let at = ProcessingPlan.position(outer: .init(width: image.width, height: image.height),
                                             inner: .init(width: tile.width, height: tile.height),
                                             gravity: .compass(point, x: options.x, y: options.y), dpr: dprScale, overflow: true)
            guard at.x < image.width, at.y < image.height, -at.x < tile.width, -at.y < tile.height else { return }
            // Only the rectangle the watermark covers is visited.
            composite(tile, over: &image, opacity: opacity,
                             columns: max(0, at.x)..<min(image.width, at.x + tile.width),
                             rows: max(0, at.y)..<min(image.height, at.y + tile.height)) { x, y in (x - at.x, y - at.y) }
        }
    }

    /// calc_position.go's offset rule: ≥ 1 is pixels times dpr, < 1 a fraction of the side.
    static func offset(_ value: Double, side: Int, dprScale: Double) -> Int {
        abs(value) >= 1 ? PlanArithmetic.roundToEven(value * dprScale) : PlanArithmetic.scaleToEven(side, value)
    }

    /// The watermark at its size for this result: its own, or fitted in `scale` of the result (imgproxy's
    /// watermark pipeline: fit, enlarge, dpr 1), by the plan arithmetic and resizer every render uses.
    static func scaled(_ pixels: PixelBuffer, options: WatermarkOptions, width: Int, height: Int) -> PixelBuffer {
        guard options.scale > 0 else { return pixels }
        var geometry = GeometryOptions()
        geometry.width = max(1, PlanArithmetic.scaleToEven(width, options.scale))
        geometry.height = max(1, PlanArithmetic.scaleToEven(height, options.scale))
        geometry.enlarge = true
        let plan = ProcessingPlan(sourceWidth: pixels.width, sourceHeight: pixels.height, geometry: geometry)
        let (w, h) = (max(1, plan.scaledWidth), max(1, plan.scaledHeight))
        if w == pixels.width && h == pixels.height { return pixels }
        return pixels.resampled(width: w, height: h)
    }

    /// `tile` (RGBA) over `image` in `columns` × `rows`, where `source` maps a result pixel to a tile pixel (nil:
    /// none there); "over" with the tile's alpha times `opacity`, rounded to bytes.
    static func composite(_ tile: PixelBuffer, over image: inout PixelBuffer, opacity: Double, columns: Range<Int>,
                          rows: Range<Int>, source: (_ x: Int, _ y: Int) -> (Int, Int)?) {
        let (channels, width) = (image.channels, image.width)
        image.pixels.withUnsafeMutableBufferPointer { target in
            tile.pixels.withUnsafeBufferPointer { wm in
                for y in rows {
                    for x in columns {
                        guard let (tx, ty) = source(x, y) else { continue }
                        let from = (ty * tile.width + tx) * 4
                        let alpha = Double(wm[from + 3]) / 255 * opacity
                        if alpha <= 0 { continue }
                        let to = (y * width + x) * channels
                        let below = channels == 4 ? Double(target[to + 3]) / 255 : 1
                        let covered = alpha + below * (1 - alpha)
                        for c in 0..<3 {
                            let value = (Double(wm[from + c]) * alpha + Double(target[to + c]) * below * (1 - alpha)) / covered
                            target[to + c] = UInt8(min(255, max(0, value.rounded())))
                        }
                        if channels == 4 { target[to + 3] = UInt8(min(255, max(0, (covered * 255).rounded()))) }
                    }
                }
            }
        }
    }
}
