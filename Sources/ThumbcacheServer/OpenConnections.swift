import HummingbirdCore
import NIOCore
import Synchronization

/// `--max-connections`, and what happens at it: a connection that arrives when the server is at the limit closes
/// the other connection that has waited longest for a request head, so the next one can be accepted. Without
/// this, connections that send nothing (1,100 of them in the review) held every slot until their head deadline,
/// and `/healthz` waited in the listen backlog behind them for seconds. A connection is idle from when it opens
/// or its last answer ends until its next head arrives (`RequestHeadDeadline` reports both); one whose request
/// is being answered is never closed here, so when every connection is busy new ones still wait. The arriving
/// connection itself is never the one closed, and each arrival closes at most one (as nginx reuses keep-alive
/// connections when it runs out). "Longest" is by when each connection began to wait, as its event loop saw it:
/// among connections that arrive in the same instant the order is arbitrary.
final class OpenConnections: Sendable {
    private struct State {
        var open = 0
        /// Idle connections by identity, with the order in which they went idle.
        var idle: [ObjectIdentifier: (since: UInt64, channel: any Channel)] = [:]
        var clock: UInt64 = 0
    }

    let maximum: Int
    private let state = Mutex(State())

    init(maximum: Int) {
        self.maximum = maximum
    }

    func opened() {
        state.withLock { $0.open += 1 }
    }

    /// Connections waiting for a request head (for tests).
    var idleCount: Int { state.withLock { $0.idle.count } }

    func closed() {
        state.withLock { $0.open -= 1 }
    }

    var isAccepting: Bool { state.withLock { $0.open < maximum } }

    /// `channel` waits for a request head; `arriving`: it has just opened.
    func idle(_ channel: any Channel, arriving: Bool) {
        let victim: (any Channel)? = state.withLock { state in
            defer {
                state.clock += 1
                state.idle[ObjectIdentifier(channel)] = (state.clock, channel)
            }
            // Registered after the search: the arriving connection is not a candidate.
            guard arriving, state.open >= maximum, let oldest = state.idle.min(by: { $0.value.since < $1.value.since }) else {
                return nil
            }
            state.idle.removeValue(forKey: oldest.key)
            return oldest.value.channel
        }
        victim?.close(promise: nil)
    }

    /// `channel` has a request being answered, or has closed.
    func busy(_ channel: any Channel) {
        _ = state.withLock { $0.idle.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Hummingbird's accept gate, counting with these connections.
    struct Delegate: AvailableConnectionsDelegate {
        let connections: OpenConnections

        mutating func connectionOpened() { connections.opened() }
        mutating func connectionClosed() { connections.closed() }
        func isAcceptingNewConnections() -> Bool { connections.isAccepting }
    }
}
