/// An 8-bit interleaved RGB (3 channels) or RGBA (4 channels, straight alpha) image.
public struct PixelBuffer: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let channels: Int
    /// Rows top to bottom, `rowBytes` apart, no padding.
    public var pixels: [UInt8]

    public init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        precondition(channels == 3 || channels == 4, "PixelBuffer holds RGB or RGBA")
        precondition(pixels.count == width * height * channels, "pixel count does not match dimensions")
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    public init(width: Int, height: Int, channels: Int) {
        self.init(width: width, height: height, channels: channels,
                  pixels: [UInt8](repeating: 0, count: width * height * channels))
    }

    public var rowBytes: Int { width * channels }
    public var hasAlpha: Bool { channels == 4 }

    /// The channel values of one pixel (for inspection; hot loops use `pixels` directly).
    public subscript(x: Int, y: Int) -> [UInt8] {
        let start = (y * width + x) * channels
        return Array(pixels[start..<start + channels])
    }

    /// Composites RGBA over an opaque background colour, for outputs without alpha (JPEG).
    public func flattened(background: (UInt8, UInt8, UInt8) = (255, 255, 255)) -> PixelBuffer {
        guard channels == 4 else { return self }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        let back = [Int(background.0), Int(background.1), Int(background.2)]
        pixels.withUnsafeBufferPointer { source in
            rgb.withUnsafeMutableBufferPointer { target in
                for i in 0..<(width * height) {
                    let alpha = Int(source[i * 4 + 3])
                    for c in 0..<3 {
                        let blended = Int(source[i * 4 + c]) * alpha + back[c] * (255 - alpha)
                        target[i * 3 + c] = UInt8((blended + 127) / 255)
                    }
                }
            }
        }
        return PixelBuffer(width: width, height: height, channels: 3, pixels: rgb)
    }
}
