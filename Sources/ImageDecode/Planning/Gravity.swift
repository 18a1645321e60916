/// Where a crop is cut from, or where an image sits on a larger canvas (imgproxy's `gravity`).
public enum Gravity: Sendable, Hashable {
    /// An edge, a corner or the centre, moved by an offset: ≥ 1 is pixels (multiplied by dpr), < 1 a
    /// fraction of the outer side. East and south offsets push inwards, as imgproxy's do.
    case compass(CompassPoint, x: Double = 0, y: Double = 0)
    /// The centre of the crop, as fractions (0…1) of the outer image.
    case focusPoint(x: Double, y: Double)
    /// libvips's `attention` strategy: a detector finds the focus point (the renderer resolves it).
    case smart
    /// libvips's `entropy` strategy, resolved by the renderer like `smart`.
    case entropy

    public static let center = Gravity.compass(.center)

    /// The nine compass positions, spelled as in imgproxy's URLs.
    public enum CompassPoint: String, Sendable, Hashable, CaseIterable {
        case center = "ce"
        case north = "no"
        case south = "so"
        case east = "ea"
        case west = "we"
        case northEast = "noea"
        case northWest = "nowe"
        case southEast = "soea"
        case southWest = "sowe"

        var isNorth: Bool { self == .north || self == .northEast || self == .northWest }
        var isSouth: Bool { self == .south || self == .southEast || self == .southWest }
        var isEast: Bool { self == .east || self == .northEast || self == .southEast }
        var isWest: Bool { self == .west || self == .northWest || self == .southWest }
    }

    /// True when only an image analysis can say where the crop goes.
    public var needsDetection: Bool { self == .smart || self == .entropy }
}
