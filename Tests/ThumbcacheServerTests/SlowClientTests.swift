import Foundation
import ImageDecode
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

/// The deadline judges progress: a client that takes a long answer slowly but steadily, across many deadlines,
/// gets every byte (the answer is not cut while it drains, nor while reading is paused with its next head unread),
/// and one that stops taking it is closed. The deadline is 2 s and the client's socket small (4 KiB receive buffer,
/// 1 KiB segments), so the server's kernel takes only about 100 KB and the server itself holds the rest. Verdicts are
/// on bytes and on the server's own count of deadline closes. The client reads 4 KiB every 16 ms, so the answer
/// takes about three deadlines while the server sees progress about every 0.1 s: only a reader stalled for a whole
/// 2 s could be cut, and such a read is not judged (`conclusiveSlowRead`: the rule itself is tested on explicit
/// clock values in ConnectionStateTests); waits are hang guards.
@Suite(.serialized) struct SlowReaderTests {
    static let deadline = Duration.seconds(2)
    /// Microseconds between the client's 4 KiB reads: about 250 KB/s, so 1.5 MB spans about three deadlines.
    static let pause: UInt32 = 16_000
    /// The side of the noise image, and of its PNG thumbnail: about 1.5 MB that does not compress.
    static let side = 720

    /// Pixels of noise (a fixed linear congruential sequence) as a PNG.
    static let noise: Data = {
        var state: UInt32 = 12345
        let pixels = (0..<(side * side * 3)).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        return try! ImageEncoder.encode(PixelBuffer(width: side, height: side, channels: 3, pixels: pixels), as: .png)
    }()

    /// A server with a 2 s deadline whose memory cache holds the noise thumbnail (one request made it), its
    /// path and bytes; both stopped afterwards.
    static func withLargeThumbnail(_ body: (ServerHarness, String, [UInt8]) async throws -> Void) async throws {
        let origin = try await TestOrigin()
        origin.image("/noise.png", noise, type: "image/png")
        let server = try await ServerHarness { $0.headerTimeout = deadline; $0.idleTimeout = .seconds(60) }
        let path = server.path(origin.url("/noise.png"), size: side, format: .png)
        let rendered = try await server.request(path)
        try #require(rendered.status == 200 && rendered.body.count > 1_000_000, "\(rendered.status), \(rendered.body.count) bytes")
        try await body(server, path, Array(rendered.body))
        await server.stop()
        await origin.stop()
    }

    static func request(_ path: String) -> String { "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" }

    static func notReadingCloses(_ server: ServerHarness) -> Int {
        server.metric("thumbcache_deadline_closes_total{reason=\"not_reading\"}")
    }

    /// Reads slowly (`RawConnection.readSlowly`) until a read is conclusive: one whose client took every 64 KiB
    /// within three quarters of a deadline, so the server saw progress in each deadline and must not have cut it.
    /// A read the machine's load stalled longer proves nothing either way (the server would be right to cut it) and
    /// is made again, up to ten times; only a machine that stalls every one records an issue. Returns the
    /// conclusive read, and the `not_reading` closes and answers from the bytes counted during it.
    static func conclusiveSlowRead(_ server: ServerHarness, path: String, pipelined: Bool, answers: Int) async throws
        -> (read: (bytes: [UInt8], closed: Bool, elapsed: Duration), closes: Int, hitsFromBytes: Int)? {
        for _ in 0..<10 {
            let (before, hitsBefore) = (notReadingCloses(server), server.hitsFromBytes)
            let read = try await RawConnection.readSlowly(port: server.port, first: request(path),
                                                          afterFirstBytes: pipelined ? request(path) : nil,
                                                          answers: answers, pauseMicroseconds: pause)
            if read.slowestWindow < deadline * 3 / 4 {
                return ((read.bytes, read.closed, read.elapsed), notReadingCloses(server) - before,
                        server.hitsFromBytes - hitsBefore)
            }
        }
        Issue.record("ten slow reads in a row were stalled for most of a deadline by the machine's load: nothing judged")
        return nil
    }

    @Test func aClientTakingALargeAnswerSlowlyGetsEveryByte() async throws {
        try await Self.withLargeThumbnail { server, path, thumbnail in
            guard let (read, closes, hits) = try await Self.conclusiveSlowRead(server, path: path, pipelined: false,
                                                                               answers: 1) else {
                return
            }
            let bodies = RawConnection.answerBodies(read.bytes)
            #expect(bodies.count == 1 && bodies.first == thumbnail,
                    "\(read.bytes.count) bytes arrived of an answer of \(thumbnail.count), closed: \(read.closed)")
            #expect(read.elapsed > Self.deadline, "the reading spanned more than one deadline")
            #expect(hits == 1, "answered from the bytes: the whole answer queued at once")
            #expect(closes == 0)
        }
    }

    /// A pipelining client sends its next request once the first answer's bytes arrive, while the server has
    /// paused reading (its unsent answer is past 64 KiB): that head is not read until the answer drains below
    /// 32 KiB, and the connection is not cut meanwhile.
    @Test func aPipeliningClientWhoseNextHeadWaitsForThePauseGetsBothAnswers() async throws {
        try await Self.withLargeThumbnail { server, path, thumbnail in
            guard let (read, closes, _) = try await Self.conclusiveSlowRead(server, path: path, pipelined: true, answers: 2) else {
                return
            }
            let bodies = RawConnection.answerBodies(read.bytes)
            #expect(bodies.count == 2 && bodies.allSatisfy { $0 == thumbnail },
                    "\(read.bytes.count) bytes arrived of two answers of \(thumbnail.count), closed: \(read.closed)")
            #expect(server.readPauses > 0)
            #expect(closes == 0)
        }
    }

    /// A client that stops taking its answer is closed (one to two deadlines after its last bytes): the server
    /// counts the close, and what the client reads afterwards ends before the answer does.
    @Test func aClientThatStopsReadingIsClosed() async throws {
        try await Self.withLargeThumbnail { server, path, thumbnail in
            let before = Self.notReadingCloses(server)
            let socket = try RawConnection.connect(port: server.port, receiveBuffer: 4096, maximumSegment: 1024)
            defer { close(socket) }
            #expect(RawConnection.send(socket, Self.request(path)))
            // A hang guard only: the close comes within two deadlines (4 s) of the last bytes the socket took.
            #expect(await CancellationTests.eventually(within: 120) { Self.notReadingCloses(server) > before },
                    "the server still holds a connection whose client stopped reading")
            let rest = try await RawConnection.readToEnd(socket, hangGuard: .seconds(120))
            #expect(rest.closed && rest.bytes.count < thumbnail.count, "\(rest.bytes.count) bytes, closed: \(rest.closed)")
        }
    }
}

extension RawConnection {
    /// Sends `first` on a new connection with a small socket (`connect`'s 4 KiB buffer and 1 KiB segments) and
    /// reads slowly and steadily, at most `chunk` bytes a read with `pauseMicroseconds` between reads, until `answers` whole
    /// answers (framed by `Content-Length`) arrived or the server closed; `afterFirstBytes` is sent when the first
    /// bytes arrive. Blocking, on a thread of its own (never the cooperative pool the in-process server needs);
    /// `hangGuard` only bounds a server that neither answers nor closes. `slowestWindow`: the longest the client took,
    /// after its first bytes, to take `window` more: how long the server may have seen no progress (a loaded machine
    /// can stall the reading thread, whatever its pace).
    static func readSlowly(port: Int, first: String, afterFirstBytes: String? = nil, answers: Int, chunk: Int = 4096,
                           pauseMicroseconds: UInt32 = 2000, window: Int = 64 << 10, hangGuard: Duration = .seconds(120))
        async throws -> (bytes: [UInt8], closed: Bool, elapsed: Duration, slowestWindow: Duration) {
        let socket = try connect(port: port, receiveBuffer: 4096, maximumSegment: 1024)
        #expect(send(socket, first))
        return await withCheckedContinuation { continuation in
            Thread {
                let started = ContinuousClock.now
                var received: [UInt8] = [], buffer = [UInt8](repeating: 0, count: chunk)
                var closed = false, next = afterFirstBytes
                // (when, bytes taken by then) after each read; `windowStart`: the last mark `window` bytes or more back
                // (the first bytes' while less than a window has arrived since).
                var marks: [(at: ContinuousClock.Instant, taken: Int)] = [], windowStart = 0
                var slowestWindow = Duration.zero
                while answerFrames(received).count < answers, started.duration(to: .now) < hangGuard {
                    var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                    guard poll(&poller, 1, 1000) > 0 else { continue }
                    let n = recv(socket, &buffer, chunk, 0)
                    let now = ContinuousClock.now
                    if n > 0 { received += buffer[0..<n] }
                    // Also at the close: a stall just before it counts.
                    if !marks.isEmpty {
                        while windowStart + 1 < marks.count, marks[windowStart + 1].taken <= received.count - window {
                            windowStart += 1
                        }
                        slowestWindow = max(slowestWindow, marks[windowStart].at.duration(to: now))
                    }
                    if n <= 0 {
                        closed = true
                        break
                    }
                    marks.append((now, received.count))
                    if let request = next {
                        next = nil
                        _ = send(socket, request)
                    }
                    usleep(pauseMicroseconds)
                }
                close(socket)
                continuation.resume(returning: (received, closed, started.duration(to: .now), slowestWindow))
            }.start()
        }
    }

    /// Reads everything until the server closes (`closed`), or `hangGuard` passes.
    static func readToEnd(_ socket: Int32, hangGuard: Duration) async throws -> (bytes: [UInt8], closed: Bool) {
        let started = ContinuousClock.now
        var received: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 65536)
        while started.duration(to: .now) < hangGuard {
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 0) > 0 {
                let n = recv(socket, &buffer, buffer.count, 0)
                if n <= 0 { return (received, true) }
                received += buffer[0..<n]
            } else {
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        return (received, false)
    }

    /// The bodies of the whole answers in `bytes`, in order, each framed by its `Content-Length`.
    static func answerBodies(_ bytes: [UInt8]) -> [[UInt8]] {
        answerFrames(bytes).map { Array(bytes[$0]) }
    }

    /// Where the bodies of the whole answers in `bytes` are.
    static func answerFrames(_ bytes: [UInt8]) -> [Range<Int>] {
        var frames: [Range<Int>] = []
        var offset = 0
        while let headEnd = firstRange(of: Array("\r\n\r\n".utf8), in: bytes, from: offset) {
            let head = String(decoding: bytes[offset..<headEnd], as: UTF8.self).lowercased()
            guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                  let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)),
                  bytes.count - (headEnd + 4) >= length
            else { break }
            frames.append((headEnd + 4)..<(headEnd + 4 + length))
            offset = headEnd + 4 + length
        }
        return frames
    }

    private static func firstRange(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count - start >= needle.count else { return nil }
        for index in start...(bytes.count - needle.count) where bytes[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }
}
