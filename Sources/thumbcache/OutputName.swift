import Foundation
import ThumbcacheKit

/// The name `get` writes to without `-o`: `<stem>-<size>.<ext>` in the current directory, the stem taken
/// from the last component of the URL's path (never its query or fragment) without its extension, so
/// `…/photo.jpg?size=large` gives `photo-256.jpg`.
enum OutputName {
    static let fallback = "thumbnail"
    /// Bytes of the stem, well inside NAME_MAX (255) with `-<size>.jpeg` added.
    static let maxStemBytes = 120

    static func stem(for source: ImageSource) -> String {
        let path: String
        switch source.kind {
        case .http:
            let encoded = URLComponents(string: source.location)?.percentEncodedPath ?? ""
            let last = encoded.split(separator: "/").last.map(String.init) ?? ""
            path = last.removingPercentEncoding ?? last
        case .file:
            path = source.location.split(separator: "/").last.map(String.init) ?? ""
        }
        return sanitized(withoutExtension(path))
    }

    /// `photo.v2.jpeg` → `photo.v2`; only a short alphanumeric suffix is an extension (not `./passwd`).
    private static func withoutExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        let suffix = name[name.index(after: dot)...]
        guard (1...5).contains(suffix.count), suffix.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return name }
        return String(name[..<dot])
    }

    /// One safe file name: no `/` (decoded from `%2F`), no control characters, no leading dot (hidden
    /// files, `..`), no surrounding spaces, a bounded length; `thumbnail` if nothing is left.
    static func sanitized(_ name: String) -> String {
        var stem = String.UnicodeScalarView()
        var bytes = 0
        for scalar in name.unicodeScalars {
            let unsafe = scalar == "/" || scalar == "\\" || scalar.properties.generalCategory == .control
                || scalar.properties.generalCategory == .format
            let safe: Unicode.Scalar = unsafe ? "_" : scalar
            bytes += UTF8.width(safe)
            guard bytes <= maxStemBytes else { break }
            stem.append(safe)
        }
        let trimmed = String(stem).trimmingCharacters(in: .whitespaces)
        let visible = trimmed.drop { $0 == "." || $0 == " " }
        return visible.isEmpty ? fallback : String(visible)
    }
}
