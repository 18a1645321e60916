extension Orientation {
    /// imgproxy's `rotate` (clockwise, after EXIF orientation) as a transform; other angles are upright.
    init(clockwiseDegrees: Int) {
        switch ((clockwiseDegrees % 360) + 360) % 360 {
        case 90: self = .rotate90
        case 180: self = .rotate180
        case 270: self = .rotate270
        default: self = .identity
        }
    }

    /// imgproxy's `rotate`, then its `flip` (horizontal, then vertical), as one transform: what follows the EXIF
    /// orientation (processing/rotate_and_flip.go's order).
    init(_ geometry: GeometryOptions) {
        var transform = Orientation(clockwiseDegrees: geometry.rotate)
        if geometry.flipHorizontal { transform = transform.followed(by: .flipHorizontal) }
        if geometry.flipVertical { transform = transform.followed(by: .flipVertical) }
        self = transform
    }

    /// This transform, then `next`, as one: the renderer moves its pixels once. Found by matching where each of
    /// the eight transforms sends the pixels of a 2×3 image (small enough to check, asymmetric enough to tell
    /// them apart).
    func followed(by next: Orientation) -> Orientation {
        let (width, height) = (2, 3)
        let (middleWidth, middleHeight) = swapsAxes ? (height, width) : (width, height)
        let (finalWidth, finalHeight) = next.swapsAxes ? (middleHeight, middleWidth) : (middleWidth, middleHeight)
        return Orientation.allCases.first { candidate in
            (0..<finalHeight).allSatisfy { y in
                (0..<finalWidth).allSatisfy { x in
                    let middle = next.sourcePosition(x: x, y: y, sourceWidth: middleWidth, sourceHeight: middleHeight)
                    let stored = sourcePosition(x: middle.0, y: middle.1, sourceWidth: width, sourceHeight: height)
                    return candidate.swapsAxes == (swapsAxes != next.swapsAxes)
                        && candidate.sourcePosition(x: x, y: y, sourceWidth: width, sourceHeight: height) == stored
                }
            }
        } ?? .identity
    }

    /// The stored image's rectangle that the upright rectangle `rect` (fractional pixels) comes from, for a
    /// stored image of `storedWidth × storedHeight`.
    func storedRegion(of rect: ProcessingPlan.SourceRegion, storedWidth w: Double, storedHeight h: Double)
        -> ProcessingPlan.SourceRegion {
        let (x, y, width, height) = (rect.x, rect.y, rect.width, rect.height)
        switch self {
        case .identity: return rect
        case .flipHorizontal: return .init(x: w - x - width, y: y, width: width, height: height)
        case .rotate180: return .init(x: w - x - width, y: h - y - height, width: width, height: height)
        case .flipVertical: return .init(x: x, y: h - y - height, width: width, height: height)
        case .transpose: return .init(x: y, y: x, width: height, height: width)
        case .rotate90: return .init(x: y, y: h - x - width, width: height, height: width)
        case .transverse: return .init(x: w - y - height, y: h - x - width, width: height, height: width)
        case .rotate270: return .init(x: w - y - height, y: x, width: height, height: width)
        }
    }
}
