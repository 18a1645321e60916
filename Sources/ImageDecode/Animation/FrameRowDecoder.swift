/// A composited animation frame seen as a decoder, so `RegionReader` reads it as it reads any image: the frame's
/// rows, RGBA, top to bottom. No colour profile (animations are read as sRGB) and no shrink-on-load; the source's
/// EXIF orientation is kept in `info`, as for its first frame.
final class FrameRowDecoder: RowDecoder {
    let info: ImageInfo
    var rowProfile: ColorProfile? { nil }
    /// nil for a decoder that only describes a frame's shape (a memory estimate).
    private let frame: PixelBuffer?

    init(_ frame: PixelBuffer, info source: ImageInfo) {
        self.frame = frame
        info = Self.frameInfo(width: frame.width, height: frame.height, source: source)
    }

    /// A frame of this size, for estimates: `start` refuses it.
    init(width: Int, height: Int, info source: ImageInfo) {
        frame = nil
        info = Self.frameInfo(width: width, height: height, source: source)
    }

    private static func frameInfo(width: Int, height: Int, source: ImageInfo) -> ImageInfo {
        ImageInfo(format: source.format, width: width, height: height, orientation: source.orientation, hasAlpha: true,
                  frameCount: source.frameCount)
    }

    /// The canvas is the animation's (`FrameSource.workingMemory`): nothing more is held here.
    func workingMemory(shrink: Double) -> Int { 0 }

    func start(shrink: Double, convertToSRGB: Bool) throws(ImageDecodeError) -> (width: Int, height: Int, channels: Int) {
        guard let frame else { throw .invalidRequest("a frame shape has no pixels") }
        return (frame.width, frame.height, frame.channels)
    }

    func readRows(_ consume: (UnsafeBufferPointer<UInt8>) throws(ImageDecodeError) -> Void) throws(ImageDecodeError) {
        guard let frame else { return }
        let rowBytes = frame.rowBytes
        try frame.pixels.withUnsafeBufferPointer { (pixels) throws(ImageDecodeError) in
            for y in 0..<frame.height {
                try consume(UnsafeBufferPointer(rebasing: pixels[y * rowBytes..<(y + 1) * rowBytes]))
            }
        }
    }
}
