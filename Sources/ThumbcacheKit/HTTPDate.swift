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
        guard let day, let month, let year, let time else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day) = (year, month, day)
        (components.hour, components.minute, components.second) = (time[0], time[1], time[2])
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: components)
    }

    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
