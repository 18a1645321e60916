import Foundation

/// An encoded thumbnail and what it was made from.
public struct Thumbnail: Sendable {
    public var data: Data
    public var format: ImageFormat
    /// Upright dimensions of the thumbnail.
    public var width: Int
    public var height: Int
    public var sourceInfo: ImageInfo
    /// With a negotiated format (`FormatFallback`): the encoding of the same pixels that was not answered, which a
    /// cache may keep beside the answer.
    public var declined: Encoding?
    /// Frames in `data`: more than 1 for an animation kept animated (`PlanRenderer.renderAnimation`).
    public var frames = 1

    /// Bytes in one format.
    public struct Encoding: Sendable {
        public var data: Data
        public var format: ImageFormat

        public init(data: Data, format: ImageFormat) {
            (self.data, self.format) = (data, format)
        }
    }

    public init(data: Data, format: ImageFormat, width: Int, height: Int, sourceInfo: ImageInfo) {
        (self.data, self.format, self.width, self.height, self.sourceInfo) = (data, format, width, height, sourceInfo)
    }
}
