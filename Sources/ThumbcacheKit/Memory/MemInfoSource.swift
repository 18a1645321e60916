import Foundation

/// The machine's available memory (`MemAvailable` of `MemTotal` in `/proc/meminfo`, Linux 3.14+): the last resort,
/// blind to a container's own limit.
package struct MemInfoSource: MemoryPressureSource {
    package let file: URL

    package init(file: URL = URL(fileURLWithPath: "/proc/meminfo")) {
        self.file = file
    }

    package func read() -> MemoryPressureReading? {
        (try? String(contentsOf: file, encoding: .utf8)).flatMap(Self.parse)
    }

    /// `MemAvailable` and `MemTotal` (given in kB) as bytes; nil when either is missing or the total is 0.
    package static func parse(_ text: String) -> MemoryPressureReading? {
        var available: Int?
        var total: Int?
        for line in text.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == ":" })
            guard fields.count >= 2, let kilobytes = Int(fields[1]) else { continue }
            switch fields[0] {
            case "MemAvailable": available = kilobytes * 1024
            case "MemTotal": total = kilobytes * 1024
            default: continue
            }
        }
        guard let available, let total, total > 0 else { return nil }
        return .available(available: available, total: total)
    }
}
