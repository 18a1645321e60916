import Foundation

/// Linux pressure stall information (kernel 4.20+): `some avg10` of each file given, the highest of them, so a
/// process sees both the machine's stalls (`/proc/pressure/memory`) and its container's (`memory.pressure`).
package struct PressureStallSource: MemoryPressureSource {
    package let files: [URL]

    package init(files: [URL]) {
        self.files = files
    }

    package func read() -> MemoryPressureReading? {
        let averages = files.compactMap { file in
            (try? String(contentsOf: file, encoding: .utf8)).flatMap(Self.someAverage10)
        }
        return averages.max().map { .stall(someAverage10: $0) }
    }

    /// The `some avg10` figure of a PSI file's text, or nil when it has none.
    package static func someAverage10(_ text: String) -> Double? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("some ") }),
              let field = line.split(separator: " ").first(where: { $0.hasPrefix("avg10=") }) else { return nil }
        return Double(field.dropFirst("avg10=".count))
    }
}
