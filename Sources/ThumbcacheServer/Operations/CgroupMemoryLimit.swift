import Foundation

/// The memory limit of the cgroup this process runs in (a container's or a systemd unit's `MemoryMax`), so the
/// memory cache can size itself from what the process may really use rather than from the machine's RAM.
public enum CgroupMemoryLimit {
    /// cgroup v2 (`<root>/<own path>/memory.max`, then `<root>/memory.max`), else v1
    /// (`<root>/memory/memory.limit_in_bytes`); nil when there is no limit ("max", or v1's page-rounded 2^63).
    public static func read(root: URL = URL(fileURLWithPath: "/sys/fs/cgroup"),
                            selfCgroup: URL = URL(fileURLWithPath: "/proc/self/cgroup")) -> Int? {
        var candidates: [URL] = []
        if let membership = try? String(contentsOf: selfCgroup, encoding: .utf8),
           let line = membership.split(separator: "\n").first(where: { $0.hasPrefix("0::") }) {
            let path = line.dropFirst(3).trimmingCharacters(in: .whitespaces)
            if path != "/" && !path.isEmpty { candidates.append(root.appendingPathComponent(path).appendingPathComponent("memory.max")) }
        }
        candidates.append(root.appendingPathComponent("memory.max"))
        candidates.append(root.appendingPathComponent("memory/memory.limit_in_bytes"))
        for file in candidates {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if value == "max" { return nil }
            guard let bytes = Int(value), bytes > 0 else { continue }
            return bytes >= 1 << 62 ? nil : bytes
        }
        return nil
    }

    /// The memory cache's default size: an eighth of the cgroup limit, within 16 MiB…1 GiB; 64 MiB without one.
    public static func suggestedCacheSize(limit: Int?) -> Int {
        guard let limit else { return 64 << 20 }
        return min(max(limit / 8, 16 << 20), 1 << 30)
    }
}
