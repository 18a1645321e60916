/// imgproxy's `IMGPROXY_PREFERRED_FORMATS`: the formats an answer naming none may be written in (`DefaultFormat`).
/// Never empty, every one written by thumbcache (`ImageFormat.isEncodable`).
public struct PreferredFormats: Sendable, Hashable, CustomStringConvertible {
    public let formats: [ImageFormat]

    /// imgproxy's default: JPEG, PNG, GIF.
    public static let imgproxy = PreferredFormats(checked: [.jpeg, .png, .gif])
    /// Every format written, in `ImageFormat`'s order: a source keeps its format whenever it can be written (the
    /// CLI's rule), else JPEG, or PNG for transparency.
    public static let encodable = PreferredFormats(checked: ImageFormat.encodable)

    private init(checked formats: [ImageFormat]) { self.formats = formats }

    /// A comma list of format names (`jpeg,png,gif`; every name `ImageFormat(name:)` knows), each written by
    /// thumbcache; a name listed twice counts once, where first listed.
    public init(parsing list: some StringProtocol) throws(Invalid) {
        var formats: [ImageFormat] = []
        for item in list.split(separator: ",", omittingEmptySubsequences: false) {
            let name = String(item.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
            guard let format = ImageFormat(name: name), format.isEncodable else { throw .notWritten(name) }
            if !formats.contains(format) { formats.append(format) }
        }
        self.formats = formats
    }

    /// A preferred-formats list that cannot be used.
    public enum Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        /// An empty item, a name no format has, or a format thumbcache does not write (HEIC, SVG).
        case notWritten(String)

        public var description: String {
            switch self {
            case let .notWritten(name):
                let what = name.isEmpty ? "an empty name" : "\"\(name)\""
                return "\(what) is not a format thumbcache writes: list \(ImageFormat.names(ImageFormat.encodable)), "
                    + "separated by commas (e.g. jpeg,png,gif)"
            }
        }
    }

    public var description: String { formats.map(\.rawValue).joined(separator: ",") }
}
