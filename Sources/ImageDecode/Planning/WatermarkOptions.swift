/// imgproxy's `watermark` option (`wm:opacity:position:x_offset:y_offset:scale`): where and how strongly the
/// server's watermark image (`WatermarkImage`) is drawn over the finished result.
public struct WatermarkOptions: Sendable, Hashable {
    /// A compass position, or `re`: the watermark repeated over the whole image.
    public enum Position: Sendable, Hashable {
        case compass(Gravity.CompassPoint)
        case replicate
    }

    /// 0…1, multiplied by the server's `--watermark-opacity`; 0 draws nothing (imgproxy's default).
    public var opacity = 0.0
    public var position = Position.compass(.center)
    /// Offsets as gravity offsets are (≥ 1 pixels times dpr, < 1 a fraction of the side); with `replicate`, the
    /// space between the copies.
    public var x = 0.0
    public var y = 0.0
    /// The watermark's size as a fraction of the result's (fitted in that box, enlarged if needed); 0: its own size.
    public var scale = 0.0

    public init(opacity: Double = 0, position: Position = .compass(.center), x: Double = 0, y: Double = 0, scale: Double = 0) {
        (self.opacity, self.position, self.x, self.y, self.scale) = (opacity, position, x, y, scale)
    }

    /// Draws anything at all.
    public var isVisible: Bool { opacity > 0 }
}
