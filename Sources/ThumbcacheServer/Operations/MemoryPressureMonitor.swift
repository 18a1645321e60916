import Foundation
import ServiceLifecycle
import ThumbcacheKit

/// Gives memory back when the machine needs it, as NSCache does: polls Linux pressure stall information
/// (`/proc/pressure/memory`, or a cgroup's `memory.pressure`) and halves the memory cache's byte bound while
/// tasks stall on memory, restoring it step by step once the pressure is gone.
public final class MemoryPressureMonitor<Key: Hashable & Sendable, Value: Sendable>: Service, Sendable {
    /// `some avg10` (percent of the last 10 s in which some task waited for memory) at or above which the cache
    /// shrinks, and below which it may grow again.
    public struct Thresholds: Sendable {
        public var shrinkAt: Double = 10
        public var growBelow: Double = 1
        /// Consecutive calm polls before each doubling back towards the configured size.
        public var calmPolls = 10
        public init() {}
    }

    private let cache: MemoryCache<Key, Value>
    private let nominal: Int
    private let floor: Int
    private let pressureFile: URL
    private let interval: Duration
    private let thresholds: Thresholds
    private let calm = Locked(0)

    public init(cache: MemoryCache<Key, Value>, pressureFile: URL, interval: Duration = .seconds(1),
                thresholds: Thresholds = Thresholds()) {
        self.cache = cache
        self.nominal = cache.limits.totalCost
        self.floor = max(1 << 20, nominal / 16)
        self.pressureFile = pressureFile
        self.interval = interval
        self.thresholds = thresholds
    }

    /// The `some avg10` figure of a PSI file, or nil when it cannot be read (no PSI on this kernel).
    public static func someAverage10(_ text: String) -> Double? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("some ") }),
              let field = line.split(separator: " ").first(where: { $0.hasPrefix("avg10=") }) else { return nil }
        return Double(field.dropFirst("avg10=".count))
    }

    /// One poll: reads the pressure and adjusts the cache's bound. Returns the bound now in force.
    @discardableResult
    public func poll() -> Int {
        let current = cache.limits.totalCost
        guard let text = try? String(contentsOf: pressureFile, encoding: .utf8),
              let pressure = Self.someAverage10(text) else { return current }
        if pressure >= thresholds.shrinkAt {
            calm.withLock { $0 = 0 }
            let lowered = max(floor, current / 2)
            if lowered < current { cache.setTotalCostLimit(lowered) }
            return lowered
        }
        guard pressure < thresholds.growBelow, current < nominal else {
            calm.withLock { $0 = 0 }
            return current
        }
        let grow = calm.withLock { count -> Bool in
            count += 1
            if count >= thresholds.calmPolls { count = 0; return true }
            return false
        }
        guard grow else { return current }
        let raised = min(nominal, current * 2)
        cache.setTotalCostLimit(raised)
        return raised
    }

    public func run() async throws {
        // Without PSI (older kernels, some containers) there is nothing to watch.
        guard FileManager.default.isReadableFile(atPath: pressureFile.path) else { return }
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                self.poll()
                try await Task.sleep(for: self.interval)
            }
        }
    }
}
