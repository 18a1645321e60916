import Foundation

/// A cgroup v2's memory charge against its limit (`memory.current` / `memory.max`): for kernels without PSI. Reads
/// nothing while the limit is "max" (the machine's memory is then the bound: `MemInfoSource`).
package struct CgroupUsageSource: MemoryPressureSource {
    package let current: URL
    package let limit: URL

    /// The files of `directory` (a cgroup v2 directory, usually `CgroupDirectory.own()`).
    package init(directory: URL) {
        current = directory.appendingPathComponent("memory.current")
        limit = directory.appendingPathComponent("memory.max")
    }

    package func read() -> MemoryPressureReading? {
        guard let current = try? String(contentsOf: current, encoding: .utf8),
              let limit = try? String(contentsOf: limit, encoding: .utf8) else { return nil }
        return Self.parse(current: current, limit: limit)
    }

    /// The reading of the two files' text; nil when the limit is "max" or either is not a byte count.
    package static func parse(current: String, limit: String) -> MemoryPressureReading? {
        guard case .bytes(let bytes) = CgroupMemoryLimit.parse(limit),
              let used = Int(current.trimmingCharacters(in: .whitespacesAndNewlines)), used >= 0 else { return nil }
        return .usage(current: used, limit: bytes)
    }
}
