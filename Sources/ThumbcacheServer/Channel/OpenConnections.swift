import HummingbirdCore
import NIOCore
import Synchronization
import ThumbcacheKit

/// `--max-connections`, and what happens at it: a connection that arrives when the server is at the limit closes
/// the other connection that has waited longest for a request head, so the next one can be accepted. Without
/// this, connections that send nothing (1,100 of them in the review) held every slot until their head deadline,
/// and `/healthz` waited in the listen backlog behind them for seconds. A connection is idle from when it opens
/// or its client has taken the whole of its last answer until its next head arrives (its `ConnectionState` reports
/// both); one whose request is being answered, or whose client is still taking an answer, is never closed here,
/// so when every connection is busy new ones still wait. The arriving connection itself is never the one closed,
/// and each arrival closes at most one (as nginx reuses keep-alive connections when it runs out).
///
/// Each connection has an `Entry`, registered once; going idle or busy is one atomic store on it (these happen on
/// every request), and only an arrival at the limit takes the lock and looks through the entries.
final class OpenConnections: Sendable {
    /// One connection: since when it has waited for a head (a monotonic clock's nanoseconds), 0 while busy.
    final class Entry: Sendable {
        let channel: any Channel
        fileprivate let waitingSince = Atomic<UInt64>(0)

        fileprivate init(channel: any Channel) {
            self.channel = channel
        }
    }

    private struct State {
        var open = 0
        var entries: [ObjectIdentifier: Entry] = [:]
    }

    let maximum: Int
    private let state = Locked(State())  // not `Mutex`: ThreadSanitizer cannot see it on Linux (`Locked`)

    init(maximum: Int) {
        self.maximum = maximum
    }

    var isAccepting: Bool { state.withLock { $0.open < maximum } }

    /// Connections waiting for a request head (for tests).
    var idleCount: Int {
        state.withLock { $0.entries.values.count { $0.waitingSince.load(ordering: .relaxed) != 0 } }
    }

    func register(_ channel: any Channel) -> Entry {
        let entry = Entry(channel: channel)
        state.withLock { $0.entries[ObjectIdentifier(entry)] = entry }
        return entry
    }

    func unregister(_ entry: Entry) {
        _ = state.withLock { $0.entries.removeValue(forKey: ObjectIdentifier(entry)) }
    }

    /// The entry's connection waits for a request head; `arriving`: it has just opened.
    func idle(_ entry: Entry, arriving: Bool) {
        entry.waitingSince.store(max(1, NIODeadline.now().uptimeNanoseconds), ordering: .relaxed)
        guard arriving else { return }
        let victim: Entry? = state.withLock { state in
            guard state.open >= maximum else { return nil }
            var oldest: (entry: Entry, since: UInt64)?
            for candidate in state.entries.values where candidate !== entry {
                let since = candidate.waitingSince.load(ordering: .relaxed)
                if since != 0, since < oldest?.since ?? .max { oldest = (candidate, since) }
            }
            // Claimed only if it is still waiting since then: one whose head has just arrived is not closed.
            guard let oldest, oldest.entry.waitingSince.compareExchange(expected: oldest.since, desired: 0, ordering: .relaxed).exchanged
            else { return nil }
            return oldest.entry
        }
        victim?.channel.close(promise: nil)
    }

    /// The entry's connection has a request being answered.
    func busy(_ entry: Entry) {
        entry.waitingSince.store(0, ordering: .relaxed)
    }

    /// Hummingbird's accept gate, counting with these connections.
    struct Delegate: AvailableConnectionsDelegate {
        let connections: OpenConnections

        mutating func connectionOpened() { connections.state.withLock { $0.open += 1 } }
        mutating func connectionClosed() { connections.state.withLock { $0.open -= 1 } }
        func isAcceptingNewConnections() -> Bool { connections.isAccepting }
    }
}
