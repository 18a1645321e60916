/// The container formats this library reads (all five) and writes (all but GIF).
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg
    case png
    case webp
    case gif
    case avif

    /// How many leading bytes `sniff` looks at, at most (an AVIF's ftyp box lists its brands).
    public static let signatureLength = 64

    /// Identifies the format from the first bytes; nil when no signature matches.
    public static func sniff<D: Collection<UInt8>>(_ data: D) -> ImageFormat? {
        let head = Array(data.prefix(signatureLength))
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        // Only "\x89PNG" is checked here so that a PNG whose line-ending bytes were mangled
        // (the classic ASCII-mode transfer) gets libpng's specific diagnosis, not "unrecognized".
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return .png }
        if head.starts(with: Array("GIF8".utf8)) { return .gif }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) { return .webp }
        if isAVIF(head) { return .avif }
        return nil
    }

    /// An ISO BMFF file whose ftyp box names an AVIF brand (major or compatible). HEIC and MP4 files
    /// share the box layout but not the brands.
    private static func isAVIF(_ head: [UInt8]) -> Bool {
        guard head.count >= 12, Array(head[4..<8]) == Array("ftyp".utf8) else { return false }
        let boxSize = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
        let brands = Set(["avif", "avis"].map { Array($0.utf8) })
        if brands.contains(Array(head[8..<12])) { return true }
        var offset = 16  // after the major brand and minor version
        while offset + 4 <= min(boxSize, head.count) {
            if brands.contains(Array(head[offset..<offset + 4])) { return true }
            offset += 4
        }
        return false
    }

    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .gif: "gif"
        case .avif: "avif"
        }
    }

    /// The media type for Content-Type and Accept matching.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .gif: "image/gif"
        case .avif: "image/avif"
        }
    }

    /// Whether thumbnails can be written in this format (GIF is read only).
    public var isEncodable: Bool { self != .gif }

    /// The formats a thumbnail can be written in.
    public static let encodable: [ImageFormat] = allCases.filter(\.isEncodable)
}
