/// An opaque colour (imgproxy's `background`: `bg:R:G:B` or `bg:hex`, 3 or 6 hex digits). In ImageDecode because
/// the renderer fills with it; Processing re-exports it.
public struct RGBColor: Sendable, Hashable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        (self.red, self.green, self.blue) = (red, green, blue)
    }

    /// nil unless exactly 3 or 6 hex digits (a 3-digit colour doubles each digit: `f80` is `ff8800`).
    public init?(hex: String) {
        let digits = hex.compactMap { $0.hexDigitValue }
        guard digits.count == hex.count else { return nil }
        switch digits.count {
        case 3: (red, green, blue) = (UInt8(digits[0] * 17), UInt8(digits[1] * 17), UInt8(digits[2] * 17))
        case 6: (red, green, blue) = (UInt8(digits[0] << 4 | digits[1]), UInt8(digits[2] << 4 | digits[3]),
                                      UInt8(digits[4] << 4 | digits[5]))
        default: return nil
        }
    }

    /// Six lower-case hex digits, the canonical spelling.
    public var hex: String {
        [red, green, blue].map { byte in
            let text = String(byte, radix: 16)
            return text.count == 1 ? "0" + text : text
        }.joined()
    }
}
