
/// A thread-safe LRU bounded by total cost (bytes) and by count, with a per-entry cost cap: the role of
/// NSCache, but a real LRU with predictable eviction. Holds encoded thumbnails.
///
/// Like NSCache it gives memory back on its own when the system is short of it: it registers with a
/// `MemoryPressureMonitor` (`shared` by default; nil opts out), which halves its bounds under pressure and
/// restores them once the pressure is gone (`PressureTrim`).
package final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: MemoryPressureResponder {
    package typealias Limits = MemoryLimits

    private final class Node {
        let key: Key
        var value: Value
        var cost: Int
        var older: Node?
        unowned(unsafe) var newer: Node?
        init(key: Key, value: Value, cost: Int) { (self.key, self.value, self.cost) = (key, value, cost) }
    }

    private struct State {
        var nodes: [Key: Node] = [:]
        var oldest: Node?
        var newest: Node?
        var totalCost = 0
        /// As configured (`init`, `setTotalCostLimit`).
        var configured: Limits
        /// In force: the configured limits, lowered while memory is short.
        var limits: Limits
        var trim = PressureTrim()

        mutating func applyTrim() {
            let bounds = trim.bounds(configuredCost: configured.totalCost, configuredCount: configured.count)
            (limits.totalCost, limits.count) = (bounds.cost, bounds.count)
        }
    }

    private let state: Locked<State>
    /// Kept so a monitor of its own (not `shared`) lives as long as the cache; it holds the cache weakly.
    private let memoryPressure: MemoryPressureMonitor?

    /// `memoryPressure`: the monitor that trims this cache when the system is short of memory; nil: never trimmed.
    package init(limits: Limits = Limits(), memoryPressure: MemoryPressureMonitor? = .shared) {
        state = Locked(State(configured: limits, limits: limits))
        self.memoryPressure = memoryPressure
        memoryPressure?.register(self)
    }

    /// The limits in force: the configured ones, with the byte and count bounds lowered while memory is short.
    package var limits: Limits { state.withLock { $0.limits } }

    /// Whether memory pressure has lowered the bounds below the configured ones.
    package var isTrimmedForMemoryPressure: Bool { state.withLock { $0.trim.isTrimming } }

    /// Changes the configured byte bound (the per-entry cap stays) and evicts least recently used entries down to
    /// it (or to the lower bound memory pressure imposes meanwhile).
    package func setTotalCostLimit(_ totalCost: Int) {
        state.withLock { state in
            state.configured.totalCost = max(0, totalCost)
            state.applyTrim()
            Self.evictOverLimits(&state)
        }
    }

    /// Halves the byte and count bounds (down to a sixteenth of what the cache held when the pressure began, at
    /// least 1 MiB and 16 entries) and evicts least recently used entries down to them.
    package func shrinkForMemoryPressure() {
        state.withLock { state in
            guard state.trim.shrink(configuredCost: state.configured.totalCost, configuredCount: state.configured.count,
                                    heldCost: state.totalCost, heldCount: state.nodes.count) else { return }
            state.applyTrim()
            Self.evictOverLimits(&state)
        }
    }

    /// Doubles the bounds back; the last step restores the configured ones.
    package func recoverFromMemoryPressure() {
        state.withLock { state in
            guard state.trim.recover() else { return }
            state.applyTrim()
        }
    }

    package func value(forKey key: Key) -> Value? {
        state.withLock { state in
            guard let node = state.nodes[key] else { return nil }
            Self.moveToNewest(node, &state)
            return node.value
        }
    }

    /// Stores `value`; returns false (and drops any old value) when it exceeds the per-entry cap.
    @discardableResult
    package func set(_ value: Value, forKey key: Key, cost: Int) -> Bool {
        state.withLock { state in
            if let old = state.nodes.removeValue(forKey: key) {
                Self.unlink(old, &state)
                state.totalCost -= old.cost
            }
            guard cost <= state.limits.entryCost else { return false }
            let node = Node(key: key, value: value, cost: cost)
            state.nodes[key] = node
            Self.append(node, &state)
            state.totalCost += cost
            Self.evictOverLimits(&state)
            return true
        }
    }

    package func removeValue(forKey key: Key) {
        state.withLock { state in
            guard let node = state.nodes.removeValue(forKey: key) else { return }
            Self.unlink(node, &state)
            state.totalCost -= node.cost
        }
    }

    package func removeAll() {
        state.withLock { state in
            state.nodes.removeAll()
            state.oldest = nil
            state.newest = nil
            state.totalCost = 0
        }
    }

    package var totalCost: Int { state.withLock { $0.totalCost } }
    package var count: Int { state.withLock { $0.nodes.count } }

    /// Keys from least to most recently used.
    package var keysInLruOrder: [Key] {
        state.withLock { state in
            var keys: [Key] = []
            var node = state.oldest
            while let current = node {
                keys.append(current.key)
                node = current.newer
            }
            return keys
        }
    }

    private static func evictOverLimits(_ state: inout State) {
        while state.totalCost > state.limits.totalCost || state.nodes.count > state.limits.count, let oldest = state.oldest {
            state.nodes.removeValue(forKey: oldest.key)
            unlink(oldest, &state)
            state.totalCost -= oldest.cost
        }
    }

    // The list holds strong references from newer to older (`older`), so the chain is owned from `newest`.
    private static func append(_ node: Node, _ state: inout State) {
        node.older = state.newest
        node.newer = nil
        state.newest?.newer = node
        state.newest = node
        if state.oldest == nil { state.oldest = node }
    }

    private static func unlink(_ node: Node, _ state: inout State) {
        if let newer = node.newer { newer.older = node.older } else { state.newest = node.older }
        if let older = node.older { older.newer = node.newer } else { state.oldest = node.newer }
        node.older = nil
        node.newer = nil
    }

    private static func moveToNewest(_ node: Node, _ state: inout State) {
        guard state.newest !== node else { return }
        unlink(node, &state)
        append(node, &state)
    }
}

/// The bounds of an in-memory cache (the pipeline's rendered images, `PipelineConfiguration.memoryLimits`; a
/// `DataCache`'s memory tier): what an app sets; the cache itself is internal.
public struct MemoryLimits: Sendable {
    public var totalCost: Int
    public var count: Int
    /// Larger entries are not kept at all, so one huge image cannot flush everything else.
    public var entryCost: Int

    public init(totalCost: Int = 64 << 20, count: Int = 1000, entryCost: Int? = nil) {
        self.totalCost = totalCost
        self.count = count
        self.entryCost = entryCost ?? max(1, totalCost / 10)
    }
}
