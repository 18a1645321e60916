/// One hexadecimal digit as an ASCII byte: read (percent-escapes in URLs, the server's hex key and salt) and
/// written (escapes in upper case, RFC 3986 §6.2.2.1).
package enum HexDigit {
    /// 0–15 for `0-9`, `a-f`, `A-F`; nil for anything else.
    package static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The upper-case digit of `value` (0–15).
    package static func uppercase(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }
}
