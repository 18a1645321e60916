import Foundation
import Testing
@testable import ThumbcacheServer

#if canImport(Glibc)
import Glibc
#endif

/// At `--max-connections`, the connection idle longest is closed so a new one is accepted: idle connections
/// cannot keep `/healthz` in the listen backlog. Driven by counts: the deadlines are far beyond the test.
@Suite(.serialized) struct ConnectionLimitTests {
    @Test func idleConnectionsMakeRoomForANewOne() async throws {
        let server = try await ServerHarness {
            $0.maxConnections = 3
            $0.headerTimeout = .seconds(600)
            $0.idleTimeout = .seconds(600)
        }
        // Two connections that send nothing, waiting (as the server sees them) before the third arrives.
        var idle = try (0..<2).map { _ in try RawConnection.connect(port: server.port) }
        defer { idle.forEach { close($0) } }
        try await Self.until { server.endpoints.connections.idleCount == 2 }
        // The third brings the server to the limit: it closes the one that has waited longest.
        idle.append(try RawConnection.connect(port: server.port))
        try await Self.until { Self.closedByPeer(idle[0]) || Self.closedByPeer(idle[1]) }
        // A fourth is accepted and answered (before, it waited in the backlog for one of the three to time out).
        let answer = try await RawConnection.exchange(server.port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") {
            $0.hasSuffix("ok\n")
        }
        #expect(answer.text.hasPrefix("HTTP/1.1 200") && answer.text.hasSuffix("ok\n"), "\(answer.text.prefix(200).debugDescription)")
        await server.stop()
    }

    /// Waits, polling, until `condition` holds: a signal, not a clock, decides (30,000 polls, at least 10 min,
    /// bound only a failing run).
    static func until(_ condition: () -> Bool) async throws {
        var waited = 0
        while !condition(), waited < 30_000 {
            try await Task.sleep(for: .milliseconds(20))
            waited += 1
        }
        try #require(condition())
    }

    /// Whether the server closed `socket` (it reads end-of-file now); nothing is ever sent on these.
    static func closedByPeer(_ socket: Int32) -> Bool {
        var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        var byte: UInt8 = 0
        return poll(&poller, 1, 0) > 0 && recv(socket, &byte, 1, Int32(MSG_PEEK)) <= 0
    }
}
