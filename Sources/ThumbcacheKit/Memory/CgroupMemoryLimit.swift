import Foundation

/// The memory limit of the cgroup this process runs in (a container's or a systemd unit's `MemoryMax`), so the
/// memory cache can size itself from what the process may really use rather than from the machine's RAM.
package enum CgroupMemoryLimit {
    /// cgroup v2 (`<root>/<own path>/memory.max`, then `<root>/memory.max`), else v1
    /// (`<root>/memory/memory.limit_in_bytes`); nil when there is no limit ("max", or v1's page-rounded 2^63).
    package static func read(root: URL = CgroupDirectory.root, selfCgroup: URL = CgroupDirectory.selfCgroup) -> Int? {
        var candidates: [URL] = []
        if let own = CgroupDirectory.own(root: root, selfCgroup: selfCgroup) {
            candidates.append(own.appendingPathComponent("memory.max"))
        }
        candidates.append(root.appendingPathComponent("memory.max"))
        candidates.append(root.appendingPathComponent("memory/memory.limit_in_bytes"))
        for file in candidates {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            switch parse(text) {
            case .unlimited: return nil
            case .bytes(let bytes): return bytes
            case nil: continue
            }
        }
        return nil
    }

    enum Parsed: Equatable {
        case unlimited
        case bytes(Int)
    }

    /// A `memory.max` or `memory.limit_in_bytes` file: "max" or at least 2^62 (v1's "no limit") is unlimited.
    static func parse(_ text: String) -> Parsed? {
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if value == "max" { return .unlimited }
        guard let bytes = Int(value), bytes > 0 else { return nil }
        return bytes >= 1 << 62 ? .unlimited : .bytes(bytes)
    }

    /// The memory cache's default size: an eighth of the cgroup limit, within 16 MiB…1 GiB; 64 MiB without one.
    package static func suggestedCacheSize(limit: Int?) -> Int {
        guard let limit else { return 64 << 20 }
        return min(max(limit / 8, 16 << 20), 1 << 30)
    }
}
