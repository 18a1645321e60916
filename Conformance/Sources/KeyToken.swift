import Foundation

/// Keys in the driver protocol are percent-encoded (bytes outside 0x21...0x7E, `%`, `"`, `=` and `,`),
/// so keys with spaces, CR or LF fit on one line; the token `""` is the empty key.
enum KeyToken {
    static func encode(_ key: String) -> String {
        if key.isEmpty { return "\"\"" }
        var out = ""
        for b in key.utf8 {
            if b > 0x20, b < 0x7F, !"%\"=,".utf8.contains(b) {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                out += "%" + String(format: "%02X", b)
            }
        }
        return out
    }

    static func decode(_ token: String) -> String? {
        if token == "\"\"" { return "" }
        var bytes: [UInt8] = []
        var chars = Array(token.utf8)[...]
        while let c = chars.popFirst() {
            if c == UInt8(ascii: "%") {
                guard chars.count >= 2,
                      let b = UInt8(String(decoding: chars.prefix(2), as: UTF8.self), radix: 16) else { return nil }
                bytes.append(b)
                chars = chars.dropFirst(2)
            } else {
                bytes.append(c)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
