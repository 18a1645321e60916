/// How a `MemoryPressureMonitor` watches memory and when its caches give memory back. The defaults suit a server
/// or an app on Linux; `isEnabled = false` watches nothing (caches keep their configured bounds).
public struct MemoryPressureConfiguration: Sendable {
    /// false: `check()` reads nothing and changes nothing, and no polling runs.
    public var isEnabled = true
    /// How often the monitor polls on its own, on a dispatch queue of its own (never the cooperative pool), while
    /// a cache is registered. nil: never on its own; the owner calls `check()` (tests, an app with its own timer).
    public var interval: Duration? = .seconds(1)
    /// Where pressure is read; nil: `MemoryPressureSources.automatic()` (PSI, else cgroup usage, else meminfo),
    /// picked at the first poll.
    public var source: (any MemoryPressureSource)?

    /// PSI `some avg10` (percent of the last 10 s in which some task waited for memory) at or above which the
    /// caches shrink (default 10), and below which they may grow again (default 1).
    public var stallShrinkAt = 10.0
    public var stallGrowBelow = 1.0
    /// cgroup `memory.current / memory.max` at or above which the caches shrink (default 0.90), and below which
    /// they may grow again (default 0.80). The kernel reclaims page cache near the limit, so usage sits high.
    public var usageShrinkAt = 0.90
    public var usageGrowBelow = 0.80
    /// `MemAvailable / MemTotal` below which the caches shrink (default 0.05), and above which they may grow
    /// again (default 0.10).
    public var availableShrinkBelow = 0.05
    public var availableGrowAbove = 0.10
    /// Calm polls in a row (default 10) before each step back towards the configured bounds, so a cache does not
    /// refill into the pressure it just gave way to.
    public var calmPolls = 10

    public init() {}

    /// What `reading` means by these thresholds.
    public func level(of reading: MemoryPressureReading) -> MemoryPressureLevel {
        switch reading {
        case .stall(let average):
            return average >= stallShrinkAt ? .high : average < stallGrowBelow ? .low : .moderate
        case .usage(let current, let limit):
            let used = Double(current) / Double(max(1, limit))
            return used >= usageShrinkAt ? .high : used < usageGrowBelow ? .low : .moderate
        case .available(let available, let total):
            let free = Double(available) / Double(max(1, total))
            return free < availableShrinkBelow ? .high : free > availableGrowAbove ? .low : .moderate
        }
    }
}
