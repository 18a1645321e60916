/// One look at how short of memory the system is, in the terms of the source that was read.
public enum MemoryPressureReading: Sendable, Equatable {
    /// Pressure stall information: the percent of the last 10 s in which some task waited for memory
    /// (`some avg10` of `/proc/pressure/memory` or a cgroup's `memory.pressure`).
    case stall(someAverage10: Double)
    /// A cgroup v2's charge against its limit (`memory.current` of `memory.max`), in bytes.
    case usage(current: Int, limit: Int)
    /// The machine's memory still available for new allocations (`MemAvailable` of `MemTotal`), in bytes.
    case available(available: Int, total: Int)
}
