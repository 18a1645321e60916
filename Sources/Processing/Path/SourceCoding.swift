import Foundation

/// The two ways imgproxy's URLs carry a source: base64url (padding optional) and percent-encoding.
enum SourceCoding {
    /// nil unless valid base64url of UTF-8 text.
    static func base64URLText<Text: StringProtocol>(_ encoded: Text) -> String? {
        var standard = String(encoded.reversed().drop { $0 == "=" }.reversed())
        guard standard.count % 4 != 1,
              standard.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        standard = String(standard.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        guard let data = Data(base64Encoded: standard) else { return nil }
        return String(data: data, encoding: .utf8)
    }

    /// Go's url.PathUnescape: `%XX` decoded, `+` left alone; nil for a broken escape.
    static func percentDecoded(_ text: String) -> String? {
        text.removingPercentEncoding
    }
}
