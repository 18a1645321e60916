/// Non-negative integers in HTTP fields (`Age`, `max-age`, `stale-if-error`, `Content-Length`, date fields),
/// parsed with checked arithmetic: a header is input, so no value of it may trap.
enum HTTPInteger {
    /// RFC 9111 §1.2.2: a delta-seconds value larger than a cache can represent counts as 2^31.
    static let maximumDeltaSeconds = 2_147_483_648

    /// ASCII digits only (no sign, no exponent, no spaces inside); a value above `cap` gives `cap`.
    /// Anything else is not a valid value: nil.
    static func parse(_ text: some StringProtocol, cap: Int = .max) -> Int? {
        var value = 0
        var sawDigit = false
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            sawDigit = true
            guard value < cap else { continue }  // saturated: keep checking that the rest are digits
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            value = overflow1 || overflow2 ? cap : min(next, cap)
        }
        return sawDigit ? value : nil
    }

    /// A delta-seconds value (RFC 9111 §1.2.2), saturated at 2^31.
    static func deltaSeconds(_ text: some StringProtocol) -> Int? {
        parse(text, cap: maximumDeltaSeconds)
    }
}
