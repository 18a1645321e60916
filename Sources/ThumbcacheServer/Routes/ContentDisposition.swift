import Foundation
import ImageDecode

/// `Content-Disposition` for a processing URL's `filename` (`fn`) and `return_attachment` (`att`) options: `inline`
/// or `attachment`, with a file name that defaults to the source's last path segment, its extension replaced by
/// the answer's. Written by RFC 6266: a quoted ASCII `filename` every client reads (quotes and backslashes escaped,
/// controls dropped, anything else outside ASCII replaced by `_`), and `filename*` in UTF-8 when the name is not
/// plain ASCII.
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

    /// The source's last path segment without its extension, percent-escapes decoded; `image` when it has none.
    static func sourceName(_ source: String) -> String {
        let path = URL(string: source)?.path ?? ""
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        let base = last.contains(".") ? String(last[..<last.lastIndex(of: ".")!]) : last
        return base.isEmpty ? "image" : base
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
        var text = ""
        for byte in name.utf8 {
            if (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || kept.contains(byte) {
                text.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                text += String(format: "%%%02X", byte)
            }
        }
        return text
    }
}
