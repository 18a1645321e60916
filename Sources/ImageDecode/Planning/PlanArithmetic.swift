/// imgproxy's integer helpers (its `imath` package), so plans round exactly as imgproxy does:
/// `round` is Go's math.Round (halves away from zero), `roundToEven` its math.RoundToEven.
enum PlanArithmetic {
    /// Past this a size is nonsense anyway; clamping keeps a huge URL value from trapping on Int(Double).
    static let limit = Double(1 << 40)

    static func round(_ value: Double) -> Int { clampedInt(value.rounded(.toNearestOrAwayFromZero)) }

    static func roundToEven(_ value: Double) -> Int { clampedInt(value.rounded(.toNearestOrEven)) }

    /// imath.Scale: 0 stays 0 (a missing side stays missing).
    static func scale(_ value: Int, _ factor: Double) -> Int { value == 0 ? 0 : round(Double(value) * factor) }

    static func scaleToEven(_ value: Int, _ factor: Double) -> Int { value == 0 ? 0 : roundToEven(Double(value) * factor) }

    static func shrinkToEven(_ value: Int, _ divisor: Double) -> Int { value == 0 ? 0 : roundToEven(Double(value) / divisor) }

    /// imath.MinNonZero: 0 means "not set", so the other value wins.
    static func minNonZero(_ a: Int, _ b: Int) -> Int { a == 0 ? b : (b == 0 ? a : min(a, b)) }

    /// A pixel count given as a Double (crop sizes ≥ 1 are truncated, as Go's int() does).
    static func limitedInt(_ value: Double) -> Int { Int(max(0, min(limit, value))) }

    private static func clampedInt(_ value: Double) -> Int {
        guard value.isFinite else { return value > 0 ? Int(limit) : value < 0 ? -Int(limit) : 0 }
        return Int(max(-limit, min(limit, value)))
    }
}
