/// Every option that decides a processed image's geometry (imgproxy's size options), with imgproxy's
/// defaults. `ProcessingPlan` turns them and a source size into rectangles and sizes.
public struct GeometryOptions: Sendable, Hashable {
    public var resizingType = ResizingType.fit
    /// Requested box; 0 derives the side from the other one and the source's aspect (`force`: keeps the source's side).
    public var width = 0
    public var height = 0
    public var minWidth = 0
    public var minHeight = 0
    /// Multiply the result's size, not gravity offsets or padding.
    public var zoomX = 1.0
    public var zoomY = 1.0
    /// Multiplies the result's size, gravity offsets in pixels and padding.
    public var dpr = 1.0
    public var enlarge = false
    public var extend = false
    public var extendGravity = Gravity.center
    public var extendAspectRatio = false
    public var extendAspectRatioGravity = Gravity.center
    /// Where the result is cut from the scaled image.
    public var gravity = Gravity.center
    /// The crop before scaling: ≥ 1 pixels, < 1 a fraction of the side, 0 the whole side.
    public var cropWidth = 0.0
    public var cropHeight = 0.0
    /// nil: the crop uses `gravity`.
    public var cropGravity: Gravity?
    /// Added around the result, in CSS pixels (multiplied by dpr).
    public var padding = Padding()
    /// Clockwise degrees after EXIF orientation: 0, 90, 180 or 270.
    public var rotate = 0
    /// imgproxy's `max_result_dimension`: the result (extend and padding included) is scaled down, dpr with it,
    /// until neither side is over this; 0 or less is no limit. nil: not given (a server's default may apply).
    public var maxResultDimension: Int?
    /// imgproxy's `flip`, after `rotate`: mirror left-right, then top-bottom. The plan is made in the flipped
    /// frame (crops and gravities mean what they say on the result), so only the renderer's orientation changes.
    public var flipHorizontal = false
    public var flipVertical = false

    public init() {}

    /// Pixels added on each side.
    public struct Padding: Sendable, Hashable {
        public var top: Int
        public var right: Int
        public var bottom: Int
        public var left: Int

        public init(top: Int = 0, right: Int = 0, bottom: Int = 0, left: Int = 0) {
            (self.top, self.right, self.bottom, self.left) = (top, right, bottom, left)
        }

        public var isZero: Bool { top == 0 && right == 0 && bottom == 0 && left == 0 }
    }
}
