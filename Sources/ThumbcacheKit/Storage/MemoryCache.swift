
/// A thread-safe LRU bounded by total cost (bytes) and by count, with a per-entry cost cap: the role of
/// NSCache, but a real LRU with predictable eviction. Holds encoded thumbnails.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    public struct Limits: Sendable {
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
        var limits: Limits
    }

    private let state: Locked<State>

    public init(limits: Limits = Limits()) {
        state = Locked(State(limits: limits))
    }

    /// The limits in force: `setTotalCostLimit` lowers and restores the byte bound under memory pressure.
    public var limits: Limits { state.withLock { $0.limits } }

    /// Changes the byte bound (the per-entry cap stays) and evicts least recently used entries down to it:
    /// how a server gives memory back when the machine needs it, as NSCache does.
    public func setTotalCostLimit(_ totalCost: Int) {
        state.withLock { state in
            state.limits.totalCost = max(0, totalCost)
            Self.evictOverLimits(&state)
        }
    }

    public func value(forKey key: Key) -> Value? {
        state.withLock { state in
            guard let node = state.nodes[key] else { return nil }
            Self.moveToNewest(node, &state)
            return node.value
        }
    }

    /// Stores `value`; returns false (and drops any old value) when it exceeds the per-entry cap.
    @discardableResult
    public func set(_ value: Value, forKey key: Key, cost: Int) -> Bool {
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

    public func removeValue(forKey key: Key) {
        state.withLock { state in
            guard let node = state.nodes.removeValue(forKey: key) else { return }
            Self.unlink(node, &state)
            state.totalCost -= node.cost
        }
    }

    public func removeAll() {
        state.withLock { state in
            state.nodes.removeAll()
            state.oldest = nil
            state.newest = nil
            state.totalCost = 0
        }
    }

    public var totalCost: Int { state.withLock { $0.totalCost } }
    public var count: Int { state.withLock { $0.nodes.count } }

    /// Keys from least to most recently used.
    public var keysInLruOrder: [Key] {
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
