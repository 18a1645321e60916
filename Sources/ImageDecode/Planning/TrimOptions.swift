/// imgproxy's `trim`: cut away the border of the source whose pixels are within `threshold` of a colour, before
/// anything else (processing/trim.go, libvips's `find_trim`). `TrimFinder` finds the rectangle that is kept.
public struct TrimOptions: Sendable, Hashable {
    /// How far (0…255 in any of R, G, B) a pixel may be from the colour and still be border.
    public var threshold: Double
    /// The border's colour; nil: the source's top-left pixel (imgproxy's default).
    public var color: RGBColor?
    /// Make the left and right borders cut equal (the smaller of the two), and the top and bottom.
    public var equalHorizontal: Bool
    public var equalVertical: Bool

    /// imgproxy's threshold when only `trim` is named.
    public static let defaultThreshold = 10.0

    public init(threshold: Double = defaultThreshold, color: RGBColor? = nil, equalHorizontal: Bool = false,
                equalVertical: Bool = false) {
        (self.threshold, self.color, self.equalHorizontal, self.equalVertical) = (threshold, color, equalHorizontal, equalVertical)
    }
}
