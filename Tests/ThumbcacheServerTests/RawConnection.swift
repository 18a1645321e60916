import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A client that writes and reads raw bytes on a TCP connection to 127.0.0.1: for what an HTTP client library
/// would not send (pipelined requests, heads in pieces, HTTP/1.0, malformed lines) or would hide (the exact
/// answer bytes, the connection closing).
enum RawConnection {
    /// `receiveBuffer`: a socket receive buffer this small (bytes), set before connecting. `maximumSegment`: TCP
    /// segments this small (bytes); with a small receive buffer it keeps the server's kernel from taking more than
    /// about 100 KB of an answer the client does not read (loopback's 64 KiB segments let it take megabytes).
    static func connect(port: Int, receiveBuffer: Int32? = nil, maximumSegment: Int32? = nil) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer {
            try #require(setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) == 0)
        }
        if var size = maximumSegment {
            try #require(setsockopt(socket, Int32(IPPROTO_TCP), TCP_MAXSEG, &size, socklen_t(MemoryLayout<Int32>.size)) == 0)
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

    /// Sends `pieces` on a new connection, one `send` call each (a piece the socket takes only in part goes on
    /// in more calls), half-closes it (`SHUT_WR`: Hummingbird then answers everything it has read and closes),
    /// and returns every byte that came back until the server closed. It reads all along, so a server that
    /// answers while the client still sends never waits on it. Nothing is decided by time: `hangGuard` only
    /// bounds a server that never closes (`closed` false), and the caller fails on that. The socket's blocking
    /// waits run on a thread of their own, never on the cooperative pool the in-process server's routes need.
    static func halfClosedExchange(_ port: Int, pieces: [[UInt8]], hangGuard: Duration = .seconds(60))
        async throws -> (received: [UInt8], closed: Bool) {
        let socket = try connect(port: port)
        return await withCheckedContinuation { continuation in
            Thread {
                let result = sendThenReadUntilClosed(socket, pieces: pieces, hangGuard: hangGuard)
                close(socket)
                continuation.resume(returning: result)
            }.start()
        }
    }

    /// `halfClosedExchange`'s blocking part, with one `poll` for both directions.
    private static func sendThenReadUntilClosed(_ socket: Int32, pieces: [[UInt8]], hangGuard: Duration) -> ([UInt8], Bool) {
        var noDelay: Int32 = 1  // each piece goes out as it is sent, not merged with the next by Nagle
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        let deadline = ContinuousClock.now + hangGuard
        var received: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 65536)
        var piece = 0, offset = 0, sending = true
        if pieces.isEmpty {
            shutdown(socket, Int32(SHUT_WR))
            sending = false
        }
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return (received, false) }
            let milliseconds = Int32(min(left.components.seconds * 1000 + 1, 60_000))
            var poller = pollfd(fd: socket, events: Int16(POLLIN) | (sending ? Int16(POLLOUT) : 0), revents: 0)
            guard poll(&poller, 1, milliseconds) > 0 else { continue }
            if poller.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                let n = recv(socket, &buffer, buffer.count, 0)
                if n > 0 {
                    received += buffer[0..<n]
                } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                    return (received, true)  // the end, or a reset: closed either way
                }
            }
            guard sending, poller.revents & Int16(POLLOUT) != 0 else { continue }
            let n = pieces[piece][offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                // The server closed while the client still sent (after a 400, say): what it answered is read on.
                if errno != EAGAIN && errno != EINTR { sending = false }
                continue
            }
            offset += n
            if offset == pieces[piece].count {
                piece += 1
                offset = 0
            }
            if piece == pieces.count {
                shutdown(socket, Int32(SHUT_WR))
                sending = false
            }
        }
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
