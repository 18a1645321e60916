import Foundation

/// An encoded thumbnail and what it was made from.
public struct Thumbnail: Sendable {
    public var data: Data
    public var format: ImageFormat
    /// Upright dimensions of the thumbnail.
    public var width: Int
    public var height: Int
    public var sourceInfo: ImageInfo
}
