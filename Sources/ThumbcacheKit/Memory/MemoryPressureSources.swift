import Foundation

/// Picks the best pressure source this system offers, in this order:
/// 1. PSI: `/proc/pressure/memory` and the own cgroup's `memory.pressure`, whichever of them exist;
/// 2. the own cgroup v2's `memory.current` of `memory.max`, when it has a limit;
/// 3. `/proc/meminfo`'s `MemAvailable` of `MemTotal`.
/// nil where none reads (not Linux): nothing is watched.
package enum MemoryPressureSources {
    package static func automatic(proc: URL = URL(fileURLWithPath: "/proc"), cgroupRoot: URL = CgroupDirectory.root,
                                 selfCgroup: URL = CgroupDirectory.selfCgroup) -> (any MemoryPressureSource)? {
        let own = CgroupDirectory.own(root: cgroupRoot, selfCgroup: selfCgroup)
        let stallFiles = [proc.appendingPathComponent("pressure/memory"), own?.appendingPathComponent("memory.pressure")]
        let stall = PressureStallSource(files: stallFiles.compactMap { $0 })
        // A PSI file that exists but cannot be read (kernel built with psi=0) is skipped, as a missing one.
        if stall.read() != nil { return stall }
        if let own {
            let usage = CgroupUsageSource(directory: own)
            if usage.read() != nil { return usage }
        }
        let memInfo = MemInfoSource(file: proc.appendingPathComponent("meminfo"))
        return memInfo.read() != nil ? memInfo : nil
    }
}
