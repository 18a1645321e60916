/// The geometry of one processed image, worked out from the source's size before any pixel is decoded,
/// with imgproxy's arithmetic (processing/prepare.go, crop.go, extend.go, padding.go, calc_position.go).
/// Everything is in upright pixels: the source after EXIF orientation and the `rotate` option.
///
/// The renderer's order: cut `sourceCrop` from the upright source, scale it by (`scaleX`, `scaleY`) to
/// `scaledWidth` × `scaledHeight`, cut `resultCrop` from that, place it on `canvas` (extend), add `padding`.
public struct ProcessingPlan: Sendable, Equatable {
    public let geometry: GeometryOptions
    /// The upright source's size, after the `rotate` option.
    public let sourceWidth: Int
    public let sourceHeight: Int
    /// The `crop` option's rectangle in upright source pixels (the whole source without one).
    public let sourceCrop: Rect
    /// Scale factors from `sourceCrop` to the scaled image (they differ only for `force` and min sizes).
    public let scaleX: Double
    public let scaleY: Double
    /// The dpr actually applied: lowered when the source is too small to honour it without enlarging.
    public let dprScale: Double
    /// The box asked for, in device pixels (0: not given).
    public let targetWidth: Int
    public let targetHeight: Int
    public let scaledWidth: Int
    public let scaledHeight: Int
    /// The part of the scaled image that is kept (gravity, `fill`, `fill-down`), in scaled pixels.
    public let resultCrop: Rect
    /// The extend canvas (`extend`, then `extend_aspect_ratio`) and where the cropped image sits on it;
    /// the cropped image itself when nothing extends it.
    public let canvas: Placement
    /// In device pixels (dpr applied).
    public let padding: GeometryOptions.Padding
    /// A smart or entropy gravity still to be resolved by looking at pixels; nil when the plan is final.
    public let detection: Detection?
    /// imgproxy's `trim`: the part of the stored source (before any orientation) that the plan's source is, as
    /// `TrimFinder` found it; nil: the whole source. The plan's source size is this rectangle's, upright.
    public let trim: Rect?
    /// A vector source (SVG): enlarged to the box whatever `enlarge` says, as imgproxy does (prepare.go); its
    /// decoder draws it at that size (`RowDecoder.drawsAtAnyScale`).
    public let vector: Bool

    public var resultWidth: Int { canvas.width + padding.left + padding.right }
    public var resultHeight: Int { canvas.height + padding.top + padding.bottom }

    /// The result's pixels, expressed in upright source pixels: what a renderer must read (and what a
    /// stored smaller copy must cover, at `scaleX`/`scaleY`, to be used instead of the original).
    public var regionInSource: SourceRegion {
        SourceRegion(x: Double(sourceCrop.x) + Double(resultCrop.x) / scaleX,
                     y: Double(sourceCrop.y) + Double(resultCrop.y) / scaleY,
                     width: Double(resultCrop.width) / scaleX, height: Double(resultCrop.height) / scaleY)
    }

    /// `sourceWidth`/`sourceHeight` are the upright (EXIF-oriented) size; `rotate` is applied here.
    /// With `trim`, `sourceWidth`/`sourceHeight` are the trimmed rectangle's upright size.
    public init(sourceWidth: Int, sourceHeight: Int, geometry: GeometryOptions, trim: Rect? = nil, vector: Bool = false) {
        self.geometry = geometry
        self.trim = trim
        self.vector = vector
        let quarterTurn = ((geometry.rotate % 360) + 360) % 180 == 90
        let (width, height) = quarterTurn ? (sourceHeight, sourceWidth) : (sourceWidth, sourceHeight)
        (self.sourceWidth, self.sourceHeight) = (max(1, width), max(1, height))
        let source = Size(width: self.sourceWidth, height: self.sourceHeight)

        // prepare.go CalcParams: the crop option's size, then the scale of what it keeps.
        let cropGravity = geometry.cropGravity ?? geometry.gravity
        let crop = Self.cut(Size(width: Self.cropSize(source.width, geometry.cropWidth),
                                 height: Self.cropSize(source.height, geometry.cropHeight)),
                            from: source, gravity: cropGravity, offsetScale: 1)
        sourceCrop = crop.rect
        let toScale = Size(width: sourceCrop.width, height: sourceCrop.height)
        let scale = Self.limitScale(toScale, geometry, scale: Self.scale(toScale, geometry, vector: vector))
        (scaleX, scaleY, dprScale) = (scale.x, scale.y, scale.dpr)

        let sizes = Self.sizes(toScale, geometry, scaleX: scaleX, scaleY: scaleY, dprScale: dprScale)
        (targetWidth, targetHeight) = (sizes.target.width, sizes.target.height)
        (scaledWidth, scaledHeight) = (sizes.scaled.width, sizes.scaled.height)

        // crop.go cropToResult: the result crop, gravity offsets scaled by dpr.
        let result = Self.cut(sizes.resultCrop, from: sizes.scaled, gravity: geometry.gravity, offsetScale: dprScale)
        resultCrop = result.rect

        // extend.go: extend to the box, then to its aspect ratio; each places the image by its gravity.
        var placement = Placement(width: resultCrop.width, height: resultCrop.height,
                                  image: Rect(x: 0, y: 0, width: resultCrop.width, height: resultCrop.height))
        if geometry.extend {
            placement = Self.extend(placement, to: sizes.target, gravity: geometry.extendGravity, dprScale: dprScale)
        }
        if geometry.extendAspectRatio, sizes.aspectCanvas.width > 0, sizes.aspectCanvas.height > 0 {
            placement = Self.extend(placement, to: sizes.aspectCanvas, gravity: geometry.extendAspectRatioGravity,
                                    dprScale: dprScale)
        }
        canvas = placement

        // padding.go: rounded to even after dpr.
        let pad = geometry.padding
        padding = .init(top: PlanArithmetic.scaleToEven(pad.top, dprScale),
                        right: PlanArithmetic.scaleToEven(pad.right, dprScale),
                        bottom: PlanArithmetic.scaleToEven(pad.bottom, dprScale),
                        left: PlanArithmetic.scaleToEven(pad.left, dprScale))

        if let gravity = crop.pending {
            detection = Detection(stage: .sourceCrop, gravity: gravity, imageWidth: source.width,
                                  imageHeight: source.height, cropWidth: sourceCrop.width, cropHeight: sourceCrop.height)
        } else if let gravity = result.pending {
            detection = Detection(stage: .resultCrop, gravity: gravity, imageWidth: scaledWidth,
                                  imageHeight: scaledHeight, cropWidth: resultCrop.width, cropHeight: resultCrop.height)
        } else {
            detection = nil
        }
    }

    /// The plan once the detector has found the focus point of `detection`'s image (fractions 0…1 of
    /// its width and height): the crop is centred there and clamped inside, as libvips's smartcrop does.
    public func resolvingDetection(focusX: Double, focusY: Double) -> ProcessingPlan {
        guard let detection else { return self }
        var resolved = geometry
        let point = Gravity.focusPoint(x: min(1, max(0, focusX)), y: min(1, max(0, focusY)))
        switch detection.stage {
        case .sourceCrop: resolved.cropGravity = point
        case .resultCrop: resolved.gravity = point
        }
        let unrotated = ((geometry.rotate % 360) + 360) % 180 == 90 ? (sourceHeight, sourceWidth) : (sourceWidth, sourceHeight)
        return ProcessingPlan(sourceWidth: unrotated.0, sourceHeight: unrotated.1, geometry: resolved, trim: trim, vector: vector)
    }

    // MARK: imgproxy's steps

    /// prepare.go CalcCropSize.
    static func cropSize(_ side: Int, _ crop: Double) -> Int {
        if crop == 0 { return 0 }
        if crop >= 1 { return PlanArithmetic.limitedInt(crop) }
        return max(1, PlanArithmetic.scale(side, crop))
    }

    /// prepare.go calcScale: shrink factors per axis, then enlarge (always, for a vector), min sizes and dpr.
    static func scale(_ source: Size, _ g: GeometryOptions, vector: Bool) -> (x: Double, y: Double, dpr: Double) {
        let srcW = Double(source.width), srcH = Double(source.height)
        let dstW = g.width != 0 ? Double(g.width) : srcW
        let dstH = g.height != 0 ? Double(g.height) : srcH
        var wshrink = dstW != srcW ? srcW / dstW : 1
        var hshrink = dstH != srcH ? srcH / dstH : 1

        if wshrink != 1 || hshrink != 1 {
            var type = g.resizingType
            if type == .auto {
                let sameOrientation = (srcW - srcH >= 0) == (dstW - dstH >= 0)
                type = sameOrientation ? .fill : .fit
            }
            if g.width == 0 && type != .force {
                wshrink = hshrink
            } else if g.height == 0 && type != .force {
                hshrink = wshrink
            } else if type == .fit {
                wshrink = max(wshrink, hshrink)
                hshrink = wshrink
            } else if type == .fill || type == .fillDown {
                wshrink = min(wshrink, hshrink)
                hshrink = wshrink
            }
        }

        wshrink /= g.zoomX
        hshrink /= g.zoomY
        var dpr = g.dpr

        if !g.enlarge && !vector {
            let minShrink = min(wshrink, hshrink)
            if minShrink < 1 {
                wshrink /= minShrink
                hshrink /= minShrink
                // Too small for the box: imgproxy raises dpr to make up for it, except when extending, where
                // the composition must not depend on dpr.
                if !g.extend { dpr /= minShrink }
            }
            // No dpr may enlarge the image.
            dpr = min(dpr, min(wshrink, hshrink))
        }

        if g.minWidth > 0 {
            let minShrink = srcW / Double(g.minWidth)
            if minShrink < wshrink {
                hshrink /= wshrink / minShrink
                wshrink = minShrink
            }
        }
        if g.minHeight > 0 {
            let minShrink = srcH / Double(g.minHeight)
            if minShrink < hshrink {
                wshrink /= hshrink / minShrink
                hshrink = minShrink
            }
        }

        wshrink /= dpr
        hshrink /= dpr
        // Never below one pixel.
        wshrink = min(wshrink, srcW)
        hshrink = min(hshrink, srcH)
        return (1 / wshrink, 1 / hshrink, dpr)
    }

    /// prepare.go limitScale (`max_result_dimension`): the output's size as extend, extend-aspect-ratio and padding
    /// will make it; when a side is over the limit, the scales and dpr shrink by one factor (never below a pixel).
    static func limitScale(_ source: Size, _ g: GeometryOptions, scale: (x: Double, y: Double, dpr: Double))
        -> (x: Double, y: Double, dpr: Double) {
        guard let limit = g.maxResultDimension, limit > 0 else { return scale }
        let sizes = sizes(source, g, scaleX: scale.x, scaleY: scale.y, dprScale: scale.dpr)
        var width = PlanArithmetic.minNonZero(sizes.scaled.width, sizes.resultCrop.width)
        var height = PlanArithmetic.minNonZero(sizes.scaled.height, sizes.resultCrop.height)
        if g.extend {
            (width, height) = (max(width, sizes.target.width), max(height, sizes.target.height))
        } else if g.extendAspectRatio {
            (width, height) = (max(width, sizes.aspectCanvas.width), max(height, sizes.aspectCanvas.height))
        }
        width += PlanArithmetic.scaleToEven(g.padding.left, scale.dpr) + PlanArithmetic.scaleToEven(g.padding.right, scale.dpr)
        height += PlanArithmetic.scaleToEven(g.padding.top, scale.dpr) + PlanArithmetic.scaleToEven(g.padding.bottom, scale.dpr)
        guard width > limit || height > limit else { return scale }
        let down = Double(limit) / Double(max(width, height))
        return (max(scale.x * down, 1 / Double(source.width)), max(scale.y * down, 1 / Double(source.height)), scale.dpr * down)
    }

    /// prepare.go calcSizes: the box in device pixels, the scaled size, the result crop and the
    /// extend-aspect-ratio canvas.
    static func sizes(_ source: Size, _ g: GeometryOptions, scaleX: Double, scaleY: Double, dprScale: Double)
        -> (target: Size, scaled: Size, resultCrop: Size, aspectCanvas: Size) {
        let target = Size(width: PlanArithmetic.scale(g.width, dprScale * g.zoomX),
                          height: PlanArithmetic.scale(g.height, dprScale * g.zoomY))
        let scaled = Size(width: PlanArithmetic.scale(source.width, scaleX), height: PlanArithmetic.scale(source.height, scaleY))

        var crop = target
        if g.resizingType == .fillDown && !g.enlarge {
            let diffW = Double(target.width) / Double(scaled.width)
            let diffH = Double(target.height) / Double(scaled.height)
            if diffW > diffH && diffW > 1 {
                crop = Size(width: scaled.width,
                            height: PlanArithmetic.scale(scaled.width, Double(target.height) / Double(target.width)))
            } else if diffH > diffW && diffH > 1 {
                crop = Size(width: PlanArithmetic.scale(scaled.height, Double(target.width) / Double(target.height)),
                            height: scaled.height)
            }
        }

        var aspect = Size(width: 0, height: 0)
        if g.extendAspectRatio && target.width > 0 && target.height > 0 {
            let outW = PlanArithmetic.minNonZero(scaled.width, crop.width)
            let outH = PlanArithmetic.minNonZero(scaled.height, crop.height)
            let diffW = Double(target.width) / Double(outW)
            let diffH = Double(target.height) / Double(outH)
            if diffH > diffW {
                aspect = Size(width: outW, height: PlanArithmetic.scale(outW, Double(target.height) / Double(target.width)))
            } else if diffW > diffH {
                aspect = Size(width: PlanArithmetic.scale(outH, Double(target.width) / Double(target.height)), height: outH)
            }
        }
        return (target, scaled, crop, aspect)
    }

    /// crop.go cropImage: a 0 side keeps the image's side; a smart gravity is left to the detector
    /// (placed at the centre until resolved).
    static func cut(_ size: Size, from image: Size, gravity: Gravity, offsetScale: Double) -> (rect: Rect, pending: Gravity?) {
        let whole = Rect(x: 0, y: 0, width: image.width, height: image.height)
        if size.width == 0 && size.height == 0 { return (whole, nil) }
        let width = PlanArithmetic.minNonZero(size.width, image.width)
        let height = PlanArithmetic.minNonZero(size.height, image.height)
        if width >= image.width && height >= image.height { return (whole, nil) }
        let pending: Gravity? = gravity.needsDetection ? gravity : nil
        let origin = position(outer: image, inner: Size(width: width, height: height),
                              gravity: pending == nil ? gravity : .center, dpr: offsetScale)
        return (Rect(x: origin.x, y: origin.y, width: width, height: height), pending)
    }

    /// extend.go extendImage.
    static func extend(_ image: Placement, to box: Size, gravity: Gravity, dprScale: Double) -> Placement {
        if box.width <= image.width && box.height <= image.height { return image }
        let outer = Size(width: box.width <= 0 ? image.width : box.width, height: box.height <= 0 ? image.height : box.height)
        let at = position(outer: outer, inner: Size(width: image.width, height: image.height), gravity: gravity, dpr: dprScale)
        var moved = image.image
        (moved.x, moved.y) = (moved.x + at.x, moved.y + at.y)
        return Placement(width: outer.width, height: outer.height, image: moved)
    }

    /// calc_position.go calcPosition: the inner rectangle's top-left corner, kept inside the outer one, or with
    /// `overflow` (a watermark) only kept overlapping it by a pixel.
    static func position(outer: Size, inner: Size, gravity: Gravity, dpr: Double, overflow: Bool = false) -> (x: Int, y: Int) {
        var left: Int, top: Int
        switch gravity {
        case let .focusPoint(x, y):
            left = PlanArithmetic.scaleToEven(outer.width, x) - inner.width / 2
            top = PlanArithmetic.scaleToEven(outer.height, y) - inner.height / 2
        case let .compass(point, x, y):
            let offX = abs(x) >= 1 ? PlanArithmetic.roundToEven(x * dpr) : PlanArithmetic.scaleToEven(outer.width, x)
            let offY = abs(y) >= 1 ? PlanArithmetic.roundToEven(y * dpr) : PlanArithmetic.scaleToEven(outer.height, y)
            // imgproxy centres with (outer - inner + 1) / 2 rounded to even, not a floor.
            left = PlanArithmetic.shrinkToEven(outer.width - inner.width + 1, 2) + offX
            top = PlanArithmetic.shrinkToEven(outer.height - inner.height + 1, 2) + offY
            if point.isNorth { top = offY }
            if point.isEast { left = outer.width - inner.width - offX }
            if point.isSouth { top = outer.height - inner.height - offY }
            if point.isWest { left = offX }
        case .smart, .entropy:
            return position(outer: outer, inner: inner, gravity: .center, dpr: dpr, overflow: overflow)
        }
        if overflow {
            left = max(1 - inner.width, min(left, outer.width - 1))
            top = max(1 - inner.height, min(top, outer.height - 1))
        } else {
            left = max(0, min(left, outer.width - inner.width))
            top = max(0, min(top, outer.height - inner.height))
        }
        return (left, top)
    }
}

extension ProcessingPlan {
    public struct Size: Sendable, Hashable {
        public var width: Int
        public var height: Int
    }

    public struct Rect: Sendable, Hashable {
        public var x: Int
        public var y: Int
        public var width: Int
        public var height: Int

        public init(x: Int, y: Int, width: Int, height: Int) {
            (self.x, self.y, self.width, self.height) = (x, y, width, height)
        }
    }

    /// A canvas and the rectangle the image covers on it (the rest is filled with the background).
    public struct Placement: Sendable, Hashable {
        public var width: Int
        public var height: Int
        public var image: Rect

        public init(width: Int, height: Int, image: Rect) {
            (self.width, self.height, self.image) = (width, height, image)
        }
    }

    /// A rectangle in source pixels, fractional because the result's pixels map back through a scale.
    public struct SourceRegion: Sendable, Hashable {
        public var x: Double
        public var y: Double
        public var width: Double
        public var height: Double
    }

    /// A crop whose position only an image analysis can give: run `gravity`'s detector on the image named by
    /// `stage` (`imageWidth` × `imageHeight`: the upright source, or the scaled image) for a
    /// `cropWidth` × `cropHeight` crop, then call `resolvingDetection(focusX:focusY:)`.
    public struct Detection: Sendable, Hashable {
        public enum Stage: Sendable, Hashable {
            /// The `crop` option's own gravity, on the source before scaling.
            case sourceCrop
            /// The result's gravity, on the scaled image.
            case resultCrop
        }

        public var stage: Stage
        public var gravity: Gravity
        public var imageWidth: Int
        public var imageHeight: Int
        public var cropWidth: Int
        public var cropHeight: Int
    }
}
