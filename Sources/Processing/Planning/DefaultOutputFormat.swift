/// What an answer is written in when its request names no format and none is taken from `Accept`.
public enum DefaultOutputFormat: Sendable, Hashable {
    /// imgproxy's rule (`determineOutputFormat`): the source's format when it is one of these, else the first of
    /// them that keeps the answer's animation and transparency, else the first.
    case preferred(PreferredFormats)
    /// A still thumbnail's (the short grammar's): JPEG, or PNG when the source has alpha.
    case jpegUnlessAlpha
}
