import Foundation
import ImageDecode
import Processing

/// `Content-Disposition` for a processing URL's `filename` (`fn`) and `return_attachment` (`att`) options: `inline`
/// or `attachment`, with a file name that defaults to the source's last path segment, its extension replaced by
/// the answer's. Written by RFC 6266: a quoted ASCII `filename` every client reads (quotes and backslashes escaped,
/// controls dropped, anything else outside ASCII replaced by `_`), and `filename*` in UTF-8 when the name is not
/// plain ASCII. Its length is bounded: `fn` by the parser (`ProcessingOptions.maxFilenameBytes`), the source's
/// name cut to the same bound. A path's values are built once per format, by `PreparedDisposition`.
struct ContentDisposition: Sendable, Equatable {
    /// The name asked for, without an extension added (nil: the source's).
    let filename: String?
    let attachment: Bool
    /// The source URL, for the default name.
    let source: String

    func value(for format: ImageFormat) -> String {
        let name = Self.withExtension(filename.flatMap { $0.isEmpty ? nil : $0 } ?? Self.sourceName(source), format)
        var value = (attachment ? "attachment" : "inline") + "; filename=\"" + Self.asciiFallback(name) + "\""
        if !name.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 && $0.value != 0x7F }) {
            value += "; filename*=UTF-8''" + Self.percentEncoded(name)
        }
        return value
    }

    /// The most bytes `value(for:)` returns: each byte of the name is at most two in the quoted `filename` (an
    /// escape) and three in `filename*` (a percent-escape), the extension (with its dot) at most five.
    static let maximumValueBytes = "attachment; filename=\"\"; filename*=UTF-8''".utf8.count
        + 5 * (ProcessingOptions.maxFilenameBytes + 5)

    /// The source's last path segment without its extension, percent-escapes decoded, its first
    /// `ProcessingOptions.maxFilenameBytes` (a source URL may be far longer); `image` when it has none.
    static func sourceName(_ source: String) -> String {
        let path = URL(string: source)?.path ?? ""
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        let base = last.contains(".") ? String(last[..<last.lastIndex(of: ".")!]) : last
        return base.isEmpty ? "image" : prefix(base, bytes: ProcessingOptions.maxFilenameBytes)
    }

    /// The longest prefix of whole characters of `name` within `bytes` UTF-8 bytes.
    static func prefix(_ name: String, bytes: Int) -> String {
        guard name.utf8.count > bytes else { return name }
        var kept = "", count = 0
        for character in name {
            count += character.utf8.count
            guard count <= bytes else { break }
            kept.append(character)
        }
        return kept
    }

    static func withExtension(_ name: String, _ format: ImageFormat) -> String {
        let ext = format == .jpeg ? "jpg" : format.rawValue
        let lower = name.lowercased()
        if lower.hasSuffix("." + ext) || (format == .jpeg && lower.hasSuffix(".jpeg")) { return name }
        return name + "." + ext
    }

    static func asciiFallback(_ name: String) -> String {
        var text = ""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\"", "\\": text += "\\" + String(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: continue
            case _ where !scalar.isASCII: text += "_"
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    /// RFC 8187's attr-char set kept, every other byte of the UTF-8 percent-encoded.
    static func percentEncoded(_ name: String) -> String {
        let kept = Set("!#$&+-.^_`|~".utf8)
        // Bytes, not `String(format:)` per byte: that took 1.7 ms for a 255-byte name.
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes = [UInt8]()
        bytes.reserveCapacity(name.utf8.count * 3)
        for byte in name.utf8 {
            if (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || kept.contains(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
