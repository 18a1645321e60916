/// EXIF Orientation (tag 0x0112), named by the transform that makes the stored pixels upright.
public enum Orientation: Int, Sendable, CaseIterable {
    case identity = 1
    case flipHorizontal = 2
    case rotate180 = 3
    case flipVertical = 4
    case transpose = 5
    /// Rotate 90 degrees clockwise (the common "camera held upright" value 6).
    case rotate90 = 6
    case transverse = 7
    /// Rotate 90 degrees counter-clockwise.
    case rotate270 = 8

    /// Values outside 1...8 are ignored (treated as upright), as Pillow and libvips do.
    public init(exifValue: Int) {
        self = Orientation(rawValue: exifValue) ?? .identity
    }

    /// True when the upright image has width and height exchanged.
    public var swapsAxes: Bool { rawValue >= 5 }

    /// Returns the upright image. Applied to the small thumbnail, after resizing, because
    /// moving the few output pixels is far cheaper than moving the decoded source.
    public func apply(to image: PixelBuffer) -> PixelBuffer {
        if self == .identity { return image }
        let (sw, sh, ch) = (image.width, image.height, image.channels)
        let (dw, dh) = swapsAxes ? (sh, sw) : (sw, sh)
        var output = [UInt8](repeating: 0, count: image.pixels.count)
        image.pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                for y in 0..<dh {
                    for x in 0..<dw {
                        let (sx, sy) = sourcePosition(x: x, y: y, sourceWidth: sw, sourceHeight: sh)
                        let from = (sy * sw + sx) * ch
                        let to = (y * dw + x) * ch
                        for c in 0..<ch { target[to + c] = source[from + c] }
                    }
                }
            }
        }
        return PixelBuffer(width: dw, height: dh, channels: ch, pixels: output)
    }

    /// Where stored pixel (x, y) goes in the upright image: where the inverse transform, whose source is the upright
    /// image, takes it from.
    func uprightPosition(x: Int, y: Int, sourceWidth w: Int, sourceHeight h: Int) -> (Int, Int) {
        let inverse: Orientation = self == .rotate90 ? .rotate270 : self == .rotate270 ? .rotate90 : self
        return inverse.sourcePosition(x: x, y: y, sourceWidth: swapsAxes ? h : w, sourceHeight: swapsAxes ? w : h)
    }

    /// Where upright pixel (x, y) comes from in the stored image.
    func sourcePosition(x: Int, y: Int, sourceWidth w: Int, sourceHeight h: Int) -> (Int, Int) {
        switch self {
        case .identity: return (x, y)
        case .flipHorizontal: return (w - 1 - x, y)
        case .rotate180: return (w - 1 - x, h - 1 - y)
        case .flipVertical: return (x, h - 1 - y)
        case .transpose: return (y, x)
        case .rotate90: return (y, h - 1 - x)
        case .transverse: return (w - 1 - y, h - 1 - x)
        case .rotate270: return (w - 1 - y, x)
        }
    }
}
