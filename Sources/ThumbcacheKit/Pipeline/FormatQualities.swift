import Foundation
import ImageDecode

/// The encoder quality of each output format when a request names none: the formats set here (a server's
/// `--format-quality`, imgproxy's `IMGPROXY_FORMAT_QUALITY` form `jpeg=80,avif=60`), else
/// `ImageEncoder.defaultQuality(for:)`. Ladder thumbnails and processed images both take their quality from here.
public struct FormatQualities: Sendable, Hashable {
    /// The qualities set, by format (the others are the encoder's defaults).
    public private(set) var overrides: [ImageFormat: Int] = [:]

    /// Why a `FORMAT=QUALITY` item was refused; each names the item as written.
    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case notAPair(item: String)
        case unknownFormat(item: String)
        case badQuality(item: String)

        public var description: String {
            switch self {
            case .notAPair(let item): "\"\(item)\" is not FORMAT=QUALITY (e.g. avif=60)"
            case .unknownFormat(let item):
                "\"\(item)\": the format must be one of \(ImageFormat.encodable.map(\.rawValue).joined(separator: ", "))"
            case .badQuality(let item): "\"\(item)\": the quality must be a whole number from 1 to 100"
            }
        }
    }

    public init(_ overrides: [ImageFormat: Int] = [:]) {
        for (format, quality) in overrides { set(quality, for: format) }
    }

    /// Items `FORMAT=QUALITY` (any encodable format; `jpg` for jpeg), each a comma list of them as imgproxy
    /// writes `IMGPROXY_FORMAT_QUALITY`; a format given twice keeps the last.
    public init(parsing items: [String]) throws(ParseError) {
        for list in items {
            for item in list.split(separator: ",") {
                let trimmed = item.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty else { continue }
                let (format, quality) = try Self.pair(trimmed)
                set(quality, for: format)
            }
        }
    }

    /// The quality `format` is encoded at when a request names none.
    public subscript(format: ImageFormat) -> Int {
        overrides[format] ?? ImageEncoder.defaultQuality(for: format)
    }

    /// Sets `format`'s quality, clamped to 1-100.
    public mutating func set(_ quality: Int, for format: ImageFormat) {
        overrides[format] = min(100, max(1, quality))
    }

    private static func pair(_ item: String) throws(ParseError) -> (ImageFormat, Int) {
        let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw .notAPair(item: item) }
        let name = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
        guard let format = ImageFormat(name: name), format.isEncodable else {
            throw .unknownFormat(item: item)
        }
        guard let quality = Int(parts[1].trimmingCharacters(in: .whitespaces)), (1...100).contains(quality) else {
            throw .badQuality(item: item)
        }
        return (format, quality)
    }
}
