import Foundation

/// HTTP dates (RFC 9110 §5.6.7): IMF-fixdate, plus the obsolete RFC 850 and asctime forms a recipient
/// must accept. Invalid dates give nil (an invalid `Expires` means "already expired").
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    static func parse(_ text: String) -> Date? {
        let parts = text.replacingOccurrences(of: ",", with: " ").split(separator: " ").map(String.init)
        var day: Int?, month: Int?, year: Int?, time: [Int]?
        for part in parts {
            if let index = months.firstIndex(of: String(part.prefix(3)).lowercased()), part.count == 3 {
                month = index + 1
            } else if part.contains(":") {
                let fields = part.split(separator: ":").compactMap { Int($0) }
                if fields.count == 3 { time = fields }
            } else if part.contains("-") {
                // RFC 850: 06-Nov-94
                let fields = part.split(separator: "-")
                if fields.count == 3, let d = Int(fields[0]), let y = Int(fields[2]),
                   let m = months.firstIndex(of: fields[1].lowercased()) {
                    day = d
                    month = m + 1
                    year = y < 100 ? (y < 70 ? 2000 + y : 1900 + y) : y
                }
            } else if let number = Int(part) {
                if number > 31 { year = number } else { day = number }
            }
        }
        guard let day, let month, let year, let time, (1...31).contains(day), time[0] < 24, time[1] < 60, time[2] < 61 else {
            return nil
        }
        let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + time[0] * 3600 + time[1] * 60 + time[2]
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func format(_ date: Date) -> String {
        let total = Int(date.timeIntervalSince1970.rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondsOfDay = total - days * 86_400
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][((days % 7) + 7) % 7]
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(weekday), \(two(day)) \(months[month - 1].capitalized) \(year) "
            + "\(two(secondsOfDay / 3600)):\(two(secondsOfDay / 60 % 60)):\(two(secondsOfDay % 60)) GMT"
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
