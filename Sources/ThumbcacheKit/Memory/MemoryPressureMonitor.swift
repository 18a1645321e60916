import Dispatch

/// Gives memory back when the system needs it, as NSCache does: reads a `MemoryPressureSource` and tells the
/// registered caches to shrink while memory is short, and to grow back step by step once it has been calm for
/// `calmPolls` polls. Every `MemoryCache` (so every `DataCache` and `ThumbnailPipeline`) registers with `shared`
/// unless given another monitor or nil.
///
/// Caches are held weakly. While at least one is registered and `interval` is set, the monitor polls on a
/// dispatch queue of its own; `check()` is the same poll, for callers that drive it themselves.
public final class MemoryPressureMonitor: Sendable {
    /// The process's monitor, with the default configuration (automatic source, 1 s polls).
    public static let shared = MemoryPressureMonitor()

    public let configuration: MemoryPressureConfiguration
    private let state = Locked(State())
    private let queue = DispatchQueue(label: "thumbcache memory pressure", qos: .utility)

    private struct Weak {
        weak var responder: (any MemoryPressureResponder)?
    }

    private struct State {
        var responders: [ObjectIdentifier: Weak] = [:]
        /// nil until the first poll picks one; `.some(nil)` when the system offers none.
        var source: (any MemoryPressureSource)??
        var calm = 0
        var timer: (any DispatchSourceTimer)?
    }

    public init(configuration: MemoryPressureConfiguration = MemoryPressureConfiguration()) {
        self.configuration = configuration
    }

    deinit {
        state.withLock { $0.timer?.cancel() }
    }

    /// Trims `responder` under pressure from now on, until it is released or `unregister`ed.
    public func register(_ responder: some MemoryPressureResponder) {
        let startPolling = state.withLock { state -> Bool in
            state.responders[ObjectIdentifier(responder)] = Weak(responder: responder)
            return state.timer == nil
        }
        if startPolling { startTimer() }
    }

    public func unregister(_ responder: some MemoryPressureResponder) {
        state.withLock { _ = $0.responders.removeValue(forKey: ObjectIdentifier(responder)) }
    }

    /// The caches registered and still alive.
    public var registeredCount: Int {
        state.withLock { state in state.responders.values.count(where: { $0.responder != nil }) }
    }

    /// The source polled: the configured one, else the one `MemoryPressureSources.automatic()` picked.
    public var source: (any MemoryPressureSource)? {
        state.withLock { state in
            if let picked = state.source { return picked }
            let picked = configuration.source ?? MemoryPressureSources.automatic()
            state.source = .some(picked)
            return picked
        }
    }

    /// One poll: reads the source and shrinks, holds or (after `calmPolls` calm polls) grows back every registered
    /// cache. Returns the level seen, nil when disabled or the source cannot be read (nothing then changes).
    @discardableResult
    public func check() -> MemoryPressureLevel? {
        guard configuration.isEnabled, let reading = source?.read() else { return nil }
        let level = configuration.level(of: reading)
        let (responders, recover) = state.withLock { state -> ([any MemoryPressureResponder], Bool) in
            state.responders = state.responders.filter { $0.value.responder != nil }
            var recover = false
            if level == .low {
                state.calm += 1
                if state.calm >= configuration.calmPolls { (state.calm, recover) = (0, true) }
            } else {
                state.calm = 0
            }
            return (state.responders.values.compactMap(\.responder), recover)
        }
        // Outside the monitor's lock: each cache takes its own.
        for responder in responders {
            if level == .high { responder.shrinkForMemoryPressure() }
            if recover { responder.recoverFromMemoryPressure() }
        }
        return level
    }

    /// Starts polling unless a timer runs. The timer is made and resumed under the lock: two registrations that
    /// both saw no timer must not both make one, since a dispatch source released before it was ever resumed
    /// crashes the process (libdispatch: "release of an inactive object").
    private func startTimer() {
        guard configuration.isEnabled, let interval = configuration.interval else { return }
        let nanoseconds = Int(min(interval / .nanoseconds(1), Double(Int.max / 2)))
        state.withLock { state in
            guard state.timer == nil else { return }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
            timer.setEventHandler { [weak self] in
                guard let self, self.anyRegistered() else { return }
                self.check()
            }
            state.timer = timer
            // Resuming only schedules the first poll on `queue`; its handler takes this lock after we release it.
            timer.resume()
        }
    }

    /// Whether a cache is still registered; when none is, polling stops (in the same lock a registration takes,
    /// so a cache registering now starts it again).
    private func anyRegistered() -> Bool {
        state.withLock { state in
            state.responders = state.responders.filter { $0.value.responder != nil }
            guard state.responders.isEmpty else { return true }
            state.timer?.cancel()
            state.timer = nil
            return false
        }
    }
}
