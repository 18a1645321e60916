import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A client that writes and reads raw bytes on a TCP connection to 127.0.0.1: for what an HTTP client library
/// would not send (pipelined requests, heads in pieces, HTTP/1.0, malformed lines) or would hide (the exact
/// answer bytes, the connection closing).
enum RawConnection {
    /// `receiveBuffer`: a socket receive buffer this small (bytes), set before connecting.
    static func connect(port: Int, receiveBuffer: Int32? = nil) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer {
            try #require(setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) == 0)
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(socket >= 0 && connected == 0)
        return socket
    }

    /// Reads until `done` says so, the peer closes, or `seconds` pass. Polls without blocking and sleeps
    /// between: a blocked thread of the cooperative pool is one the in-process server cannot use.
    static func read(_ socket: Int32, seconds: Int, until done: (String) -> Bool) async throws -> (text: String, closed: Bool) {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        for _ in 0..<(seconds * 50) {
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 0) > 0 {
                let n = recv(socket, &buffer, buffer.count, 0)
                if n <= 0 { return (String(decoding: received, as: UTF8.self), true) }
                received.append(contentsOf: buffer[0..<n])
                if done(String(decoding: received, as: UTF8.self)) { break }
            } else {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        return (String(decoding: received, as: UTF8.self), false)
    }

    /// Whether the socket has room to send within `seconds`. Polls without blocking, as `read` does.
    static func waitUntilWritable(_ socket: Int32, seconds: Int) async throws -> Bool {
        for _ in 0..<(seconds * 50) {
            var poller = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
            if poll(&poller, 1, 0) > 0 { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Sends all of `text`; false when the connection would not take it.
    static func send(_ socket: Int32, _ text: String) -> Bool {
        Glibc.send(socket, text, text.utf8.count, Int32(MSG_NOSIGNAL)) == text.utf8.count
    }

    /// Sends `requests` on a new connection and reads until `done` or the server closes. The 60 s only guard against
    /// a hang: a shorter cap turned a slow answer on a loaded machine into a missing one.
    static func exchange(_ port: Int, _ requests: String, until done: @escaping (String) -> Bool = { _ in false })
        async throws -> (text: String, closed: Bool) {
        let socket = try connect(port: port)
        defer { close(socket) }
        #expect(send(socket, requests))
        return try await read(socket, seconds: 60, until: done)
    }
}
