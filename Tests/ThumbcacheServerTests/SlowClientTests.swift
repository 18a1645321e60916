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
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(socket >= 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(server.port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == 0)
        var closed = false
        // One header line every 200 ms, never the blank line that ends the head: at most 40 lines (8 s).
        for index in 0..<40 where !closed {
            let line = index == 0 ? "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" : "X-Slow-\(index): y\r\n"
            if send(socket, line, line.utf8.count, Int32(MSG_NOSIGNAL)) < 0 { closed = true; break }
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
