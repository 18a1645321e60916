/// A cache a `MemoryPressureMonitor` trims (`MemoryCache`). The monitor holds it weakly: a released cache is
/// simply forgotten.
public protocol MemoryPressureResponder: AnyObject, Sendable {
    /// The system is short of memory: hold less (one step down).
    func shrinkForMemoryPressure()
    /// The pressure has been gone for a while: one step back towards the configured bounds.
    func recoverFromMemoryPressure()
}
