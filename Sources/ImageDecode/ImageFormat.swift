/// The container formats thumbcache knows: the ones it reads (`isDecodable`) and writes (`isEncodable`). Every list of
/// formats a message or a help text shows is derived from these two properties, so a format gaining a decoder or an
/// encoder changes them here only.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg
    case png
    case webp
    case gif
    case avif
    case heic
    case jxl
    case tiff
    case bmp
    case ico
    case svg

    /// How many leading bytes `sniff` looks at, at most: an SVG's root element may follow an XML declaration, a
    /// doctype and comments (AVIF's and HEIC's ftyp box fits in the first 64).
    public static let signatureLength = 1024

    /// A format by the name a URL, a flag or a file extension gives it, in any case: the raw value, or `jpg`, `heif`,
    /// `tif` (imgproxy's names plus the common extensions).
    public init?(name: some StringProtocol) {
        switch name.lowercased() {
        case "jpg": self = .jpeg
        case "heif": self = .heic
        case "tif": self = .tiff
        case let other: self.init(rawValue: other)
        }
    }

    /// Identifies the format from the first bytes; nil when no signature matches.
    public static func sniff<D: Collection<UInt8>>(_ data: D) -> ImageFormat? {
        let head = Array(data.prefix(signatureLength))
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        // Only "\x89PNG" is checked here so that a PNG whose line-ending bytes were mangled
        // (the classic ASCII-mode transfer) gets libpng's specific diagnosis, not "unrecognized".
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return .png }
        if head.starts(with: Array("GIF8".utf8)) { return .gif }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) { return .webp }
        if let brand = isoBrandFormat(head) { return brand }
        if head.starts(with: [0xFF, 0x0A]) || head.starts(with: jxlContainer) { return .jxl }
        if head.starts(with: Array("II*\0".utf8)) || head.starts(with: Array("MM\0*".utf8))
            || head.starts(with: Array("II+\0".utf8)) || head.starts(with: Array("MM\0+".utf8)) { return .tiff }
        if head.count >= 14, head.starts(with: Array("BM".utf8)) { return .bmp }
        // ICO: reserved 0, type 1, and at least one entry.
        if head.count >= 6, head.starts(with: [0, 0, 1, 0]), head[4] | head[5] != 0 { return .ico }
        if SVGSniffer.isSVG(head) { return .svg }
        return nil
    }

    /// The JPEG XL container's signature box (a bare codestream starts FF 0A).
    private static let jxlContainer: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]

    /// An ISO BMFF file whose ftyp box names an AVIF brand (major or compatible) is AVIF; one naming a HEIF brand is
    /// HEIC. AVIF is looked for first: AVIF files also list the generic HEIF brand `mif1`.
    private static func isoBrandFormat(_ head: [UInt8]) -> ImageFormat? {
        guard head.count >= 12, Array(head[4..<8]) == Array("ftyp".utf8) else { return nil }
        let boxSize = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
        var brands = [Array(head[8..<12])]
        var offset = 16  // after the major brand and minor version
        while offset + 4 <= min(boxSize, head.count) {
            brands.append(Array(head[offset..<offset + 4]))
            offset += 4
        }
        let avif = Set(["avif", "avis"].map { Array($0.utf8) })
        let heif = Set(["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1"].map { Array($0.utf8) })
        if brands.contains(where: avif.contains) { return .avif }
        if brands.contains(where: heif.contains) { return .heic }
        return nil
    }

    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        default: rawValue
        }
    }

    /// Every file extension that names this format, the usual one first.
    public var fileExtensions: [String] {
        switch self {
        case .jpeg: ["jpg", "jpeg"]
        case .heic: ["heic", "heif"]
        case .tiff: ["tiff", "tif"]
        default: [rawValue]
        }
    }

    /// The media type for Content-Type and Accept matching (imgproxy's).
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .gif: "image/gif"
        case .avif: "image/avif"
        case .heic: "image/heif"
        case .jxl: "image/jxl"
        case .tiff: "image/tiff"
        case .bmp: "image/bmp"
        case .ico: "image/x-icon"
        case .svg: "image/svg+xml"
        }
    }

    /// Whether sources in this format can be read. A format is added here when its decoder lands.
    public var isDecodable: Bool {
        switch self {
        case .jpeg, .png, .webp, .gif, .avif, .heic, .jxl, .tiff, .bmp, .ico, .svg: true
        }
    }

    /// Drawn from a description at any size rather than stored as pixels: its declared size is never refused for
    /// the pixel limit but scaled down to fit it, and it is rasterised at the size the plan needs (imgproxy's rule).
    public var isVector: Bool { self == .svg }

    /// Whether thumbnails can be written in this format. A format is added here when its encoder lands. HEIC, JPEG
    /// XL, AVIF and TIFF are written through libraries opened at first use (`CodecLibrary`): a machine without them
    /// (or a libheif without its x265 plugin) refuses at encode time with what to install
    /// (`ImageDecodeError.libraryUnavailable`).
    public var isEncodable: Bool {
        switch self {
        case .jpeg, .png, .webp, .gif, .avif, .heic, .jxl, .tiff, .bmp, .ico: true
        case .svg: false
        }
    }

    /// Whether thumbnails in this format keep transparency (imgproxy's `SupportsAlpha`): every format but JPEG.
    public var savesAlpha: Bool { self != .jpeg }

    /// Whether an answer can be asked for in this format: one written from pixels (`isEncodable`), or SVG, which is
    /// never drawn from pixels but answered by passing an SVG source through (sanitised); a raster source asked for
    /// SVG is refused when rendered (imgproxy: 422). `f:`, an extension and `skp` are checked against this.
    public var isAskable: Bool { isEncodable || isVector }

    /// The formats a thumbnail can be written in.
    public static let encodable: [ImageFormat] = allCases.filter(\.isEncodable)
    /// The formats an answer can be asked for in (`isAskable`).
    public static let askable: [ImageFormat] = allCases.filter(\.isAskable)
    /// The formats a source can be in.
    public static let decodable: [ImageFormat] = allCases.filter(\.isDecodable)

    /// "jpeg, png, webp or avif": `formats` named for a message (with `jpg` for JPEG when `imgproxyNames`).
    public static func names(_ formats: [ImageFormat], imgproxyNames: Bool = false) -> String {
        let names = formats.map { imgproxyNames && $0 == .jpeg ? "jpg" : $0.rawValue }
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }
}
