import Foundation
import HTTPTypes
import NIOCore
import Testing
@testable import ThumbcacheServer

#if canImport(Glibc)
import Glibc
#endif

/// `WireHitHandler` reads request heads itself, in front of NIO's decoder: it must answer only what it read
/// completely, hand everything else to the decoder whole, and never let an answer overtake another.
@Suite(.serialized) struct WireHitHandlerTests {
    static func parse(_ text: String) -> WireRequestParse { WireRequest.parse(ByteBuffer(string: text)) }

    static func request(_ text: String) -> WireRequest? {
        if case .request(let request) = parse(text) { return request }
        return nil
    }

    @Test func readsAnAnswerableHead() throws {
        let get = try #require(Self.request("GET /a/64/contain/eA.png?v=2 HTTP/1.1\r\nHost: x\r\nAccept:\timage/webp \r\n\r\n"))
        #expect(get.isAnswerable && !get.isHead && get.path == "/a/64/contain/eA.png")
        #expect(get.fields[HTTPField.Name("Host")!] == "x" && get.fields[.accept] == "image/webp" && get.fields.count == 2)
        let head = try #require(Self.request("HEAD / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"))
        #expect(head.isAnswerable && head.isHead)
    }

    /// Parsed and framed (no body), but for the decoder and Hummingbird to answer.
    @Test func bodilessRequestsItDoesNotAnswerStayFramed() throws {
        for text in ["GET / HTTP/1.0\r\n\r\n", "HEAD / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
                     "GET http://example.test/ HTTP/1.1\r\n\r\n"] {
            let request = try #require(Self.request(text), "\(text)")
            #expect(!request.isAnswerable, "\(text)")
        }
    }

    /// Differences `SmugglingDifferentialTests` found. NIO's decoder hands values on with the spaces and tabs after
    /// them, and `RequestHeadRules` refuses `Host: 127.0.0.1 ` (400), llhttp `Content-Length: 0<tab>`: neither is
    /// answerable here. llhttp reads `Proxy-Connection` as `Connection`, and parses nothing after a request that
    /// closes the connection: such a request is not answered here, and nothing after it is (`closesConnection`).
    @Test func headsTheDecoderReadsByTheirRawValuesOrClosesAfterAreNotAnswered() throws {
        for text in ["GET / HTTP/1.1\r\nHost: x \r\n\r\n", "GET / HTTP/1.1\r\nHost: x\t\r\n\r\n"] {
            let request = try #require(Self.request(text), "\(text)")
            #expect(!request.isAnswerable && !request.closesConnection, "\(text)")
        }
        for text in ["GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\t\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 0 \r\n\r\n"] {
            guard case .unframed = Self.parse(text) else {
                Issue.record("framed: \(text.debugDescription)")
                continue
            }
        }
        for text in ["GET / HTTP/1.1\r\nHost: x\r\nProxy-Connection: close\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\nConnection: CLOSE\r\n\r\n",
                     "GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nConnection: x-close\r\n\r\n",
                     "GET / HTTP/1.0\r\n\r\n", "GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n"] {
            let request = try #require(Self.request(text), "\(text)")
            #expect(request.closesConnection && !request.isAnswerable, "\(text)")
        }
        for text in ["GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n", "GET / HTTP/1.0\r\nProxy-Connection: Keep-Alive\r\n\r\n"] {
            let request = try #require(Self.request(text), "\(text)")
            #expect(!request.closesConnection, "\(text)")
        }
        let trimmed = try #require(Self.request("GET / HTTP/1.1\r\nHost: x\r\nAccept:\timage/webp \t\r\n\r\n"))
        #expect(trimmed.isAnswerable && trimmed.fields[.accept] == "image/webp", "the fields as HTTP types have them")
    }

    /// Another method, a body, an upgrade, or a line outside the plain grammar: the rest of the connection is
    /// the decoder's (llhttp rejects a lower-case method, and stops parsing after `CONNECT`).
    @Test func headsItCannotFrameAreUnframed() {
        let heads = [
            "POST /admin/purge/eA HTTP/1.1\r\nAuthorization: Bearer t\r\n\r\n", "get / HTTP/1.1\r\n\r\n",
            "CONNECT 127.0.0.1:80 HTTP/1.1\r\n\r\n", "OPTIONS * HTTP/1.1\r\n\r\n", "FOO / HTTP/1.1\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n", "GET / HTTP/1.1\r\ncontent-length: 1\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", "GET / HTTP/1.1\r\nUpgrade: websocket\r\n\r\n",
            "GET / HTTP/1.1\r\nA: b\r\n c\r\n\r\n", "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", "GET / HTTP/1.1\r\nA: \u{e9}\r\n\r\n",
            "GET / HTTP/1.1\r\n: x\r\n\r\n", "GET / HTTP/1.1\r\nNoColon\r\n\r\n", "GET / HTTP/1.1\nA: b\r\n\r\n",
            "GET  / HTTP/1.1\r\n\r\n", "GET / HTTP/2.0\r\n\r\n", "GET / HTTP/1.12\r\n\r\n", "GET /\u{7f} HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1\r\n" + String(repeating: "A: b\r\n", count: WireHitHandler.maximumFields + 1) + "\r\n",
        ]
        for head in heads {
            guard case .unframed = Self.parse(head) else {
                Issue.record("framed: \(head.debugDescription)")
                continue
            }
        }
    }

    /// The blank line is found wherever it is, and only there, as are bare LFs: checked against a plain search
    /// on every string of up to 8 bytes over CR, LF and one other byte, searched whole and, as a head arriving in
    /// pieces is, from every point its earlier bytes were already searched to.
    @Test func findsTheEndOfAHeadExactly() {
        let alphabet: [UInt8] = [13, 10, UInt8(ascii: "a")]
        var strings: [[UInt8]] = [[]], layer: [[UInt8]] = [[]]
        for _ in 0..<8 {
            layer = layer.flatMap { string in alphabet.map { string + [$0] } }
            strings += layer
        }
        var checked = 0
        for bytes in strings {
            let expected = (0..<max(0, bytes.count - 3)).first { Array(bytes[$0..<($0 + 4)]) == [13, 10, 13, 10] }.map { $0 + 4 }
            let bareLineFeeds = bytes.indices.filter { bytes[$0] == 10 && ($0 == 0 || bytes[$0 - 1] != 13) }
            let buffer = ByteBuffer(bytes: bytes)
            #expect(WireRequest.headLength(buffer) == expected, "\(bytes)")
            #expect(WireRequest.hasBareLineFeed(buffer) == !bareLineFeeds.isEmpty, "\(bytes)")
            for searched in 0...bytes.count {
                if expected.map({ $0 <= searched }) != true {  // no blank line ends in the bytes searched before
                    #expect(WireRequest.headLength(buffer, from: searched) == expected, "\(bytes) from \(searched)")
                }
                if bareLineFeeds.allSatisfy({ $0 >= searched }) {
                    #expect(WireRequest.hasBareLineFeed(buffer, from: searched) == !bareLineFeeds.isEmpty, "\(bytes) from \(searched)")
                }
            }
            checked += 1
        }
        #expect(checked == (0...8).reduce(0) { $0 + Int(pow(3.0, Double($1))) })
    }

    /// The head sent in pieces (the blank line split too) is answered here once it is whole.
    @Test func aHeadInPiecesIsAnsweredWhenWhole() async throws {
        try await ServerHarness.withCachedThumbnail { server, path in
            let before = server.hitsFromBytes
            let socket = try RawConnection.connect(port: server.port)
            defer { close(socket) }
            for piece in ["GE", "T \(path) HTTP/1.1\r\nHo", "st: 127.0.0.1\r\n\r", "\n"] {
                #expect(RawConnection.send(socket, piece))
                try await Task.sleep(for: .milliseconds(50))
            }
            let answer = try await RawConnection.read(socket, seconds: 600) { $0.contains("X-Thumbcache: memory") }
            #expect(answer.text.hasPrefix("HTTP/1.1 200 OK\r\n") && !answer.closed)
            #expect(server.hitsFromBytes == before + 1)
        }
    }

    /// Hit, slow miss, hit in one write: answered in that order, the first hit here, the last by the router
    /// (from memory too), behind the miss it was read after.
    @Test func answersDoNotOvertakeARoutedRequest() async throws {
        let origin = try await TestOrigin()
        origin.image("/hot.jpg", Fixtures.jpeg)
        origin.image("/slow.jpg", Fixtures.jpeg, delay: .milliseconds(500))
        let server = try await ServerHarness()
        let hot = server.path(origin.url("/hot.jpg"), size: 64)
        let slow = server.path(origin.url("/slow.jpg"), size: 64)
        #expect(try await server.request(hot).status == 200)
        let before = server.hitsFromBytes
        let routerBefore = server.hitsByRouter
        let socket = try RawConnection.connect(port: server.port)
        defer { close(socket) }
        let requests = [hot, slow, hot].map { "GET \($0) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" }.joined()
        #expect(RawConnection.send(socket, requests))
        let received = try await RawConnection.read(socket, seconds: 600) { $0.components(separatedBy: "HTTP/1.1 200").count == 4 }
        let served = received.text.components(separatedBy: "\r\n").filter { $0.hasPrefix("X-Thumbcache: ") }
        #expect(served == ["X-Thumbcache: memory", "X-Thumbcache: network", "X-Thumbcache: memory"], "\(received.text.prefix(800))")
        #expect(server.hitsFromBytes == before + 1)
        #expect(server.hitsByRouter == routerBefore + 1, "the last hit went to the router")
        await server.stop()
        await origin.stop()
    }

    /// After a request with a body, the connection's bytes all go to the decoder: the body is not read as a
    /// request, and the hit after it is still answered, in order.
    @Test func aRequestWithABodyHandsTheConnectionToTheDecoder() async throws {
        try await ServerHarness.withCachedThumbnail { server, path in
            let before = server.hitsFromBytes
            let socket = try RawConnection.connect(port: server.port)
            defer { close(socket) }
            let body = "GET \(path) HTTP/1.1\r\n\r\n"  // a request's shape, as a body: must not be answered
            let requests = "POST /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                + "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            #expect(RawConnection.send(socket, requests))
            let received = try await RawConnection.read(socket, seconds: 600) { $0.contains("X-Thumbcache: memory") }
            let statuses = received.text.components(separatedBy: "\r\n").filter { $0.hasPrefix("HTTP/1.1 ") }
            #expect(statuses.count == 2 && statuses.first?.hasPrefix("HTTP/1.1 200") == false && statuses.last == "HTTP/1.1 200 OK",
                    "\(statuses)")
            #expect(server.hitsFromBytes == before, "nothing answered from the bytes after the body")
        }
    }

    /// Lines ended by a bare LF never make the CRLF CRLF this parser waits for: the head goes on to the decoder at
    /// once, whose answer the client gets (not a wait for the head timer).
    @Test func aHeadWithBareLineFeedsIsLeftToTheDecoder() async throws {
        try await ServerHarness.withCachedThumbnail { server, path in
            let before = server.hitsFromBytes
            let received = try await RawConnection.exchange(server.port, "GET \(path) HTTP/1.1\nHost: 127.0.0.1\n\n") {
                $0.contains("\r\n\r\n")
            }
            #expect(received.text.hasPrefix("HTTP/1.1 "), "an answer, whichever: \(received.text.prefix(200))")
            #expect(server.hitsFromBytes == before)
        }
    }

    /// A head the parser frames but NIO's decoder rejects (a repeated `Content-Length`), then a hit in the same
    /// write: the decoder's 400 comes first and the hit is not answered from the bytes behind it.
    @Test func aHeadTheDecoderRejectsIsAnsweredFirst() async throws {
        try await ServerHarness.withCachedThumbnail { server, path in
            let before = server.hitsFromBytes
            let requests = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n"
                + "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            let received = try await RawConnection.exchange(server.port, requests)
            let statuses = received.text.components(separatedBy: "\r\n").filter { $0.hasPrefix("HTTP/1.1 ") }
            #expect(statuses.first?.hasPrefix("HTTP/1.1 400") == true, "\(received.text.prefix(300))")
            #expect(server.hitsFromBytes == before)
        }
    }

    /// After `CONNECT` NIO's decoder stops parsing; a hit sent behind it must not be answered from the bytes
    /// (the client would take it for the answer to a request the decoder still holds).
    @Test func nothingIsAnsweredHereAfterConnect() async throws {
        try await ServerHarness.withCachedThumbnail { server, path in
            let before = server.hitsFromBytes
            let socket = try RawConnection.connect(port: server.port)
            defer { close(socket) }
            #expect(RawConnection.send(socket, "CONNECT 127.0.0.1:80 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            let connectAnswer = try await RawConnection.read(socket, seconds: 600) { $0.contains("\r\n\r\n") }
            #expect(connectAnswer.text.hasPrefix("HTTP/1.1 "), "CONNECT answered first")
            // Sent once that answer is out, when no request of the connection waits on the router.
            #expect(RawConnection.send(socket, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            let received = try await RawConnection.read(socket, seconds: 2) { $0.contains("X-Thumbcache") }
            #expect(!received.text.contains("X-Thumbcache"), "\(received.text.prefix(300))")
            #expect(server.hitsFromBytes == before)
        }
    }

    /// A client that sends hits and never reads meets backpressure: once its connection cannot take more, hits
    /// go to Hummingbird (which waits to write), the server stops reading, and the client's sends block. Answers
    /// queued here without that check would grow with every request the client managed to send.
    @Test func aClientThatDoesNotReadIsNotAnsweredWithoutBound() async throws {
        try await ServerHarness.withCachedThumbnail { server, path in
            let before = server.hitsFromBytes
            let socket = try RawConnection.connect(port: server.port, receiveBuffer: 4096)
            defer { close(socket) }
            #expect(fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK) == 0)
            let batch = Array(String(repeating: "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", count: 100).utf8)
            let limit = 100_000  // requests: ~1 KB answers each, all queued in memory if nothing pushed back
            var sentBytes = 0, blocked = false
            while sentBytes < batch.count * (limit / 100) {
                let offset = sentBytes % batch.count
                let n = batch[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n > 0 {
                    sentBytes += n
                    continue
                }
                #expect(errno == EAGAIN, "send failed: \(errno)")
                if try await !RawConnection.waitUntilWritable(socket, seconds: 2) {  // 2 s without room: the server stopped reading
                    blocked = true
                    break
                }
            }
            let requests = sentBytes / (batch.count / 100)
            let answered = server.hitsFromBytes - before
            try await Task.sleep(for: .seconds(1))
            let answeredLater = server.hitsFromBytes - before
            #expect(blocked, "the server read all \(requests) requests")
            // Without the check the server went on answering (about 4,500 a second, each flush walking the
            // growing queue) until it had answered every request it could read.
            #expect(answered < 5_000 && answeredLater - answered < 100,
                    "\(answered), a second later \(answeredLater), of \(requests) requests answered into an unread connection")
            #expect(try await server.request(path).status == 200, "other connections are still served")
        }
    }

    /// A head the parser leaves alone is still judged by NIO's decoder: a malformed one gets its 400.
    @Test func aMalformedHeadGetsTheDecodersAnswer() async throws {
        try await ServerHarness.withCachedThumbnail { server, path in
            let received = try await RawConnection.exchange(server.port, "GET \(path) HTTP/1.1\r\nBad Name: x\r\n\r\n") {
                $0.contains("\r\n\r\n")
            }
            #expect(received.text.hasPrefix("HTTP/1.1 400"), "\(received.text.prefix(200))")
        }
    }
}
