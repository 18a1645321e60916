import Foundation

/// HTTP dates (RFC 9110 §5.6.7): IMF-fixdate, plus the obsolete RFC 850 and asctime forms a recipient
/// must accept. Invalid dates give nil (an invalid `Expires` means "already expired").
package enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The dates this type represents: years 1 to 9999 (the four digits of an IMF-fixdate). Anything outside
    /// is an invalid date, never a trap, and every `Date` formats (clamped into this range).
    static let earliest = Date(timeIntervalSince1970: TimeInterval(daysSinceEpoch(year: 1, month: 1, day: 1) * 86_400))
    static let latest = Date(timeIntervalSince1970: TimeInterval(daysSinceEpoch(year: 9999, month: 12, day: 31) * 86_400 + 86_399))

    package static func parse(_ text: String) -> Date? {
        if let date = parseFixdate(text) { return date }
        let parts = text.split { $0 == " " || $0 == "," || $0 == "\t" }
        var day: Int?, month: Int?, year: Int?, time: [Int]?
        for part in parts {
            if part.count == 3, let index = months.firstIndex(of: part.lowercased()) {
                month = index + 1
            } else if part.contains(":") {
                let fields = part.split(separator: ":", omittingEmptySubsequences: false)
                guard fields.count == 3, fields.allSatisfy({ $0.count <= 2 }) else { return nil }
                let values = fields.compactMap { HTTPInteger.parse($0) }
                guard values.count == 3 else { return nil }
                time = values
            } else if part.contains("-") {
                // RFC 850: 06-Nov-94
                let fields = part.split(separator: "-", omittingEmptySubsequences: false)
                guard fields.count == 3, fields[0].count <= 2, fields[2].count == 2 || fields[2].count == 4,
                      let d = HTTPInteger.parse(fields[0]), let y = HTTPInteger.parse(fields[2]),
                      let m = months.firstIndex(of: fields[1].lowercased()) else { return nil }
                day = d
                month = m + 1
                year = fields[2].count == 2 ? twoDigitYear(y) : y
            } else if let number = HTTPInteger.parse(part) {
                // At most four digits: a longer number is no part of an HTTP date (and must not reach the arithmetic).
                guard part.count <= 4 else { return nil }
                if part.count > 2 {
                    year = number
                } else if day == nil {
                    day = number
                } else {
                    year = twoDigitYear(number)  // `06 Nov 94`, read as RFC 850's two digits
                }
            }
        }
        guard let day, let month, let year, let time, (1...31).contains(day), (1...9999).contains(year),
              time[0] < 24, time[1] < 60, time[2] < 61 else {
            return nil
        }
        let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + time[0] * 3600 + time[1] * 60 + time[2]
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The usual form, `Sun, 06 Nov 1994 08:49:37 GMT`, read from fixed byte positions: what the general parser
    /// gives for it, without its splitting and lowercasing (a twentieth of a fresh warm run went there). Nil for any
    /// other shape, which the general parser then reads.
    private static func parseFixdate(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { b -> Date? in
            guard b.count == 29, b[3] == UInt8(ascii: ","), b[4] == 0x20, b[7] == 0x20, b[11] == 0x20, b[16] == 0x20,
                  b[19] == UInt8(ascii: ":"), b[22] == UInt8(ascii: ":"), b[25] == 0x20,
                  b[26] == UInt8(ascii: "G"), b[27] == UInt8(ascii: "M"), b[28] == UInt8(ascii: "T"),
                  (0..<3).allSatisfy({ (b[$0] | 0x20) >= UInt8(ascii: "a") && (b[$0] | 0x20) <= UInt8(ascii: "z") })
            else { return nil }
            func number(_ range: Range<Int>) -> Int? {
                var value = 0
                for i in range {
                    guard b[i] >= UInt8(ascii: "0") && b[i] <= UInt8(ascii: "9") else { return nil }
                    value = value * 10 + Int(b[i] - UInt8(ascii: "0"))
                }
                return value
            }
            let name = String(decoding: [b[8] | 0x20, b[9] | 0x20, b[10] | 0x20], as: UTF8.self)
            guard let month = months.firstIndex(of: name), let day = number(5..<7), let year = number(12..<16),
                  let hour = number(17..<19), let minute = number(20..<22), let second = number(23..<25),
                  (1...31).contains(day), (1...9999).contains(year), hour < 24, minute < 60, second < 61 else { return nil }
            let seconds = daysSinceEpoch(year: year, month: month + 1, day: day) * 86_400 + hour * 3600 + minute * 60 + second
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }
    }

    private static func twoDigitYear(_ year: Int) -> Int {
        year < 70 ? 2000 + year : 1900 + year
    }

    /// IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`. A date outside years 1 to 9999 (or not finite, as a
    /// damaged metadata file may hold) is clamped into them.
    package static func format(_ date: Date) -> String {
        let total = Int(clamped(date.timeIntervalSince1970).rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondsOfDay = total - days * 86_400
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        // Written as bytes: a server formats one per answer (Last-Modified), and interpolation with
        // Foundation's `capitalized` was a visible part of a memory hit's cost.
        var text: [UInt8] = []
        text.reserveCapacity(32)
        text += weekdayNames[((days % 7) + 7) % 7].utf8
        text += ", ".utf8
        appendDigits(day, width: 2, to: &text)
        text.append(UInt8(ascii: " "))
        text += monthNames[month - 1].utf8
        text.append(UInt8(ascii: " "))
        appendDigits(year, width: 4, to: &text)
        text.append(UInt8(ascii: " "))
        appendDigits(secondsOfDay / 3600, width: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        appendDigits(secondsOfDay / 60 % 60, width: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        appendDigits(secondsOfDay % 60, width: 2, to: &text)
        text += " GMT".utf8
        return String(decoding: text, as: UTF8.self)
    }

    private static let weekdayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `n` (not negative) in decimal, zero-padded to at least `width` digits.
    private static func appendDigits(_ n: Int, width: Int, to text: inout [UInt8]) {
        var divisor = 1, count = 1
        while n / divisor >= 10 {
            divisor *= 10
            count += 1
        }
        for _ in count..<max(count, width) { text.append(UInt8(ascii: "0")) }
        while divisor > 0 {
            text.append(UInt8(ascii: "0") + UInt8(n / divisor % 10))
            divisor /= 10
        }
    }

    /// Seconds since 1970 within the representable dates: NaN counts as 1970, ±infinity as the nearest end.
    static func clamped(_ seconds: TimeInterval) -> TimeInterval {
        guard !seconds.isNaN else { return 0 }
        return min(max(seconds, earliest.timeIntervalSince1970), latest.timeIntervalSince1970)
    }

    // Plain proleptic-Gregorian arithmetic (Howard Hinnant's days-from-civil): a Calendar would load ICU
    // data in every process, which costs a disk hit more than the rest of its work.
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilDate(daysSinceEpoch: Int) -> (year: Int, month: Int, day: Int) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
