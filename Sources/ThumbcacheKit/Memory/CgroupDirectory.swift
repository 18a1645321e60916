import Foundation

/// The cgroup v2 directory this process belongs to: where its `memory.max`, `memory.current` and `memory.pressure`
/// are. Read from the `0::` line of `/proc/self/cgroup`, under the cgroup root.
package enum CgroupDirectory {
    package static let root = URL(fileURLWithPath: "/sys/fs/cgroup")
    package static let selfCgroup = URL(fileURLWithPath: "/proc/self/cgroup")

    /// `root` + the process's own cgroup path, or nil at the root itself (no cgroup of its own) or without cgroup v2.
    package static func own(root: URL = root, selfCgroup: URL = selfCgroup) -> URL? {
        guard let membership = try? String(contentsOf: selfCgroup, encoding: .utf8),
              let line = membership.split(separator: "\n").first(where: { $0.hasPrefix("0::") }) else { return nil }
        let path = line.dropFirst(3).trimmingCharacters(in: .whitespaces)
        guard path != "/", !path.isEmpty else { return nil }
        return root.appendingPathComponent(path)
    }
}
