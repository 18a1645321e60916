/// What the header says about an image, read without decoding any pixels.
public struct ImageInfo: Sendable, Equatable {
    public var format: ImageFormat
    /// Dimensions as stored in the file, before EXIF orientation is applied.
    public var width: Int
    public var height: Int
    public var orientation: Orientation
    public var hasAlpha: Bool
    public var isProgressive: Bool

    public init(format: ImageFormat, width: Int, height: Int, orientation: Orientation = .identity,
                hasAlpha: Bool = false, isProgressive: Bool = false) {
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
        self.hasAlpha = hasAlpha
        self.isProgressive = isProgressive
    }

    /// Dimensions as displayed, after EXIF orientation.
    public var orientedWidth: Int { orientation.swapsAxes ? height : width }
    public var orientedHeight: Int { orientation.swapsAxes ? width : height }
}
