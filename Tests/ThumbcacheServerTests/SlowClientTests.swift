import Foundation
import Testing
@testable import ThumbcacheServer

#if canImport(Glibc)
import Glibc
#endif

/// A client that trickles its request head is cut by the request-head deadline, though each byte it sends
/// would reset an idle timeout.
@Suite(.serialized) struct SlowClientTests {
    @Test func aRequestHeadSentTooSlowlyIsCut() async throws {
        let server = try await ServerHarness { $0.headerTimeout = .seconds(1); $0.idleTimeout = .seconds(60) }
        let socket = try RawConnection.connect(port: server.port)
        defer { close(socket) }
        var closed = false
        // One header line every 200 ms, never the blank line that ends the head, until the server cuts it; at most
        // 600 lines (2 minutes) only as a hang guard: 40 lines (8 s) made a busy machine's late cut a failure.
        for index in 0..<600 where !closed {
            let line = index == 0 ? "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" : "X-Slow-\(index): y\r\n"
            if !RawConnection.send(socket, line) { closed = true; break }
            try await Task.sleep(for: .milliseconds(200))
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 0) > 0 {
                var byte: UInt8 = 0
                closed = recv(socket, &byte, 1, 0) <= 0
            }
        }
        #expect(closed, "the server closed the connection before the head was complete")
        #expect(try await server.request("/healthz").status == 200, "an ordinary request is still served")
        await server.stop()
    }
}
