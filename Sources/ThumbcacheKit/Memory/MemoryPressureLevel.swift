/// What a reading means for the caches, by `MemoryPressureConfiguration`'s thresholds.
public enum MemoryPressureLevel: Sendable, Equatable {
    /// Short of memory: the caches halve what they may hold.
    case high
    /// Between the thresholds: the caches hold their current bounds.
    case moderate
    /// Calm: after enough calm polls in a row the caches grow back one step towards their configured bounds.
    case low
}
