/// Where a `MemoryPressureMonitor` reads the system's memory pressure. The Linux sources are
/// `PressureStallSource`, `CgroupUsageSource` and `MemInfoSource` (`MemoryPressureSources.automatic()` picks one);
/// tests give their own to drive the monitor.
public protocol MemoryPressureSource: Sendable {
    /// The pressure now, or nil when it cannot be read (the monitor then changes nothing).
    func read() -> MemoryPressureReading?
}
