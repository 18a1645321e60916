import AsyncHTTPClient
import NIOCore

/// HTTP clients by the address their host is pinned to. AsyncHTTPClient resolves names itself; to connect exactly
/// to an address the source policy checked, a client is configured with `dnsOverride = [host: address]`, which is
/// client-wide. So there is one client per (host, address), kept in a small LRU so that connections are reused,
/// plus one unpinned client that resolves as usual. An evicted client is shut down once no request uses it.
final class HTTPClientPool: Sendable {
    private struct Key: Hashable {
        var host: String
        var address: String  // "" for the unpinned client
    }

    private struct Entry {
        let client: HTTPClient
        var users: Int
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var clock: UInt64 = 0
        var closing: [UInt64: Task<Void, Never>] = [:]
        var nextClosing: UInt64 = 0
        var isShutDown = false
    }

    private let base: HTTPClient.Configuration
    private let capacity: Int
    private let state = Locked(State())

    init(configuration: HTTPClient.Configuration, capacity: Int = 16) {
        base = configuration
        self.capacity = max(1, capacity)
    }

    /// Runs `body` with a client that connects to `address` for `host` (nil: the client resolves `host` itself).
    func withClient<T>(host: String, pinnedTo address: IPAddress?, _ body: (HTTPClient) async throws -> T) async throws -> T {
        let key = Key(host: host, address: address?.description ?? "")
        let client = try lease(key, address: address)
        defer { release(key) }
        return try await body(client)
    }

    private func lease(_ key: Key, address: IPAddress?) throws -> HTTPClient {
        let (client, evicted) = try state.withLock { state throws -> (HTTPClient, [HTTPClient]) in
            guard !state.isShutDown else { throw HTTPClientError.alreadyShutdown }
            state.clock += 1
            if var entry = state.entries[key] {
                entry.users += 1
                entry.lastUse = state.clock
                state.entries[key] = entry
                return (entry.client, [])
            }
            var configuration = base
            if let address {
                // The key AsyncHTTPClient looks the override up by: an IPv6 literal host in brackets.
                let lookup = IPAddress(key.host)?.isIPv6 == true ? "[\(key.host)]" : key.host
                configuration.dnsOverride = [lookup: address.description]
            }
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            state.entries[key] = Entry(client: client, users: 1, lastUse: state.clock)
            return (client, Self.evictIdle(&state, capacity: capacity))
        }
        close(evicted)
        return client
    }

    private func release(_ key: Key) {
        let evicted = state.withLock { state -> [HTTPClient] in
            state.entries[key]?.users -= 1
            return Self.evictIdle(&state, capacity: capacity)
        }
        close(evicted)
    }

    /// Least recently used idle clients beyond the capacity (clients in use are never evicted, so the pool may
    /// exceed it while that many requests run at once).
    private static func evictIdle(_ state: inout State, capacity: Int) -> [HTTPClient] {
        var evicted: [HTTPClient] = []
        while state.entries.count > capacity,
              let oldest = state.entries.filter({ $0.value.users == 0 }).min(by: { $0.value.lastUse < $1.value.lastUse }) {
            evicted.append(oldest.value.client)
            state.entries[oldest.key] = nil
        }
        return evicted
    }

    private func close(_ clients: [HTTPClient]) {
        for client in clients {
            state.withLock { state in
                let id = state.nextClosing
                state.nextClosing += 1
                state.closing[id] = Task { [state = self.state] in
                    try? await client.shutdown()
                    _ = state.withLock { $0.closing.removeValue(forKey: id) }
                }
            }
        }
    }

    /// Shuts every client down (after the requests using them: call it once no fetch is running).
    func shutdown() async {
        let (clients, closing) = state.withLock { state in
            state.isShutDown = true
            defer { (state.entries, state.closing) = ([:], [:]) }
            return (state.entries.values.map(\.client), Array(state.closing.values))
        }
        for client in clients { try? await client.shutdown() }
        for task in closing { await task.value }
    }

    /// Clients currently kept (for tests of the bound).
    var count: Int { state.withLock { $0.entries.count } }
}
