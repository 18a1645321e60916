import Foundation

/// RFC 4648 §5 base64url without padding: how sources and signatures travel in a path segment.
/// Foundation's base64 does the coding; the alphabet is swapped byte by byte (on the hit path, String's
/// `replacingOccurrences` cost more than the request's HMAC and hashing together).
package enum Base64URL {
    package static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let standard = Data(bytes).base64EncodedData()
        var url = [UInt8]()
        url.reserveCapacity(standard.count)
        for byte in standard {
            switch byte {
            case UInt8(ascii: "+"): url.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): url.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): break
            default: url.append(byte)
            }
        }
        return String(decoding: url, as: UTF8.self)
    }

    package static func encode(_ text: String) -> String { encode(Array(text.utf8)) }

    /// nil for anything outside the alphabet (padding included) or of an impossible length.
    package static func decode(_ text: Substring) -> Data? {
        let count = text.utf8.count
        guard count % 4 != 1 else { return nil }
        var standard = [UInt8]()
        standard.reserveCapacity(count + 3)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                standard.append(byte)
            case UInt8(ascii: "-"): standard.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): standard.append(UInt8(ascii: "/"))
            default: return nil
            }
        }
        standard.append(contentsOf: repeatElement(UInt8(ascii: "="), count: (4 - count % 4) % 4))
        return Data(base64Encoded: Data(standard))
    }
}
