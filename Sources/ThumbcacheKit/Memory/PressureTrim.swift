/// The bounds a cache keeps while memory is short. At the first shrink it takes what the cache holds (or its
/// configured bound, if lower) as the base; each step down halves the base again, never below a sixteenth of
/// the base, 1 MiB and 16 entries; each step up doubles back, and the last restores the configured bounds.
/// So an unbounded cache (`Int.max`) gives memory back too, relative to what it held.
struct PressureTrim: Sendable, Equatable {
    static let smallestCost = 1 << 20
    static let smallestCount = 16
    static let deepestSteps = 4  // 1/16

    private(set) var baseCost = 0
    private(set) var baseCount = 0
    private(set) var steps = 0

    var isTrimming: Bool { steps > 0 }

    /// One step down from `configured`, for a cache holding `heldCost` bytes in `heldCount` entries; false when
    /// the bounds are already as low as they go.
    mutating func shrink(configuredCost: Int, configuredCount: Int, heldCost: Int, heldCount: Int) -> Bool {
        if steps == 0 {
            baseCost = min(configuredCost, heldCost)
            baseCount = min(configuredCount, heldCount)
        }
        let now = bounds(configuredCost: configuredCost, configuredCount: configuredCount)
        var deeper = self
        deeper.steps += 1
        let next = deeper.bounds(configuredCost: configuredCost, configuredCount: configuredCount)
        guard steps < Self.deepestSteps, next.cost < now.cost || next.count < now.count else { return false }
        self = deeper
        return true
    }

    /// One step back up; false when not trimming.
    mutating func recover() -> Bool {
        guard steps > 0 else { return false }
        steps -= 1
        return true
    }

    /// The bounds in force: the configured ones when not trimming.
    func bounds(configuredCost: Int, configuredCount: Int) -> (cost: Int, count: Int) {
        guard steps > 0 else { return (configuredCost, configuredCount) }
        let cost = max(Self.smallestCost, baseCost / 16, baseCost >> steps)
        let count = max(Self.smallestCount, baseCount / 16, baseCount >> steps)
        return (min(configuredCost, cost), min(configuredCount, count))
    }
}
