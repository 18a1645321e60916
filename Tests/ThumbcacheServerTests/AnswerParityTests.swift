import Foundation
import NIOHTTP1
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

#if canImport(Glibc)
import Glibc
#endif

/// Memory hits are answered from the request bytes (`WireHitHandler`); they must be the answers the router
/// gives, in order on a connection, and never served when the router would refuse.
@Suite(.serialized) struct AnswerParityTests {
    /// Headers that differ between two answers by design: when they were made and how the connection goes.
    static let perAnswer: Set<String> = ["date", "server-timing", "connection"]

    static func comparable(_ answer: ServerHarness.Answer) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in answer.headers where !perAnswer.contains(name.lowercased()) { fields[name.lowercased()] = value }
        return fields
    }

    /// `Connection: close` makes the fast path hand the request to the router, which answers it from the same
    /// memory cache: the two answers must match but for the per-answer headers (max-age may tick by a second).
    @Test func answersAreTheRoutersAnswers() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness()
        let explicit = server.path(origin.url("/a.jpg"), size: 64, format: .png)
        let negotiated = server.path(origin.url("/a.jpg"), size: 64)
        let first = try await server.request(explicit)
        #expect(first.status == 200 && first.header("X-Thumbcache") == "network")
        _ = try await server.request(negotiated, headers: [("Accept", "image/webp,*/*")])
        let etag = try #require(first.header("ETag"))
        let cases: [(String, HTTPMethod, [(String, String)])] = [
            (explicit, .GET, []), (explicit + "?v=2", .GET, []), (explicit, .HEAD, []), (explicit, .GET, [("If-None-Match", etag)]),
            (negotiated, .GET, [("Accept", "image/webp,*/*")]), (negotiated, .HEAD, [("Accept", "image/webp,*/*")]),
        ]
        for (path, method, headers) in cases {
            let (bytesBefore, routerBefore) = (server.hitsFromBytes, server.hitsByRouter)
            let fast = try await server.request(path, method: method, headers: headers)
            #expect(server.hitsFromBytes == bytesBefore + 1, "answered from the bytes: \(method) \(headers)")
            let routed = try await server.request(path, method: method, headers: headers + [("Connection", "close")])
            #expect(server.hitsFromBytes == bytesBefore + 1 && server.hitsByRouter == routerBefore + 1, "answered by the router")
            #expect(fast.status == routed.status && fast.body == routed.body, "\(method) \(headers)")
            var fastFields = Self.comparable(fast), routedFields = Self.comparable(routed)
            #expect(fastFields.removeValue(forKey: "cache-control")?.hasPrefix("public, max-age=") == true)
            #expect(routedFields.removeValue(forKey: "cache-control")?.hasPrefix("public, max-age=") == true)
            #expect(fastFields == routedFields, "\(method) \(headers)")
            #expect(fast.header("X-Thumbcache") == "memory" && fast.header("Date") != nil && fast.header("Server") == "thumbcache")
        }
        #expect(try await server.request(explicit, headers: [("If-None-Match", etag)]).status == 304)
        #expect(origin.count("/a.jpg") == 1)
        await server.stop()
        await origin.stop()
    }

    @Test func aStoppingServerAnswersEvenCachedThumbnailsWith503() async throws {
        try await ServerHarness.withCachedThumbnail { server, path in
            server.endpoints.beginStopping()
            let answer = try await server.request(path)
            #expect(answer.status == 503 && answer.header("Retry-After") != nil)
        }
    }

    /// The wire writes the bytes the router's answer makes (both stamp and lay out heads with `AnswerHead`): the same
    /// request, answered from the bytes, and with a field the wire does not read (a non-ASCII value, so the decoder
    /// gets it and the router answers), differs only in the per-answer values. GET, HEAD and a 304.
    @Test func theWireWritesTheBytesTheRouterWrites() async throws {
        try await ServerHarness.withCachedThumbnail { server, path in
            let etag = try #require(try await server.request(path).header("ETag"))
            for (method, extra) in [("GET", ""), ("HEAD", ""), ("GET", "If-None-Match: \(etag)\r\n")] {
                let request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(extra)"
                let (bytesBefore, routerBefore) = (server.hitsFromBytes, server.hitsByRouter)
                let fromBytes = try await RawConnection.exchange(server.port, request + "\r\n") { Self.isWhole($0, method) }
                #expect(server.hitsFromBytes == bytesBefore + 1)
                let routed = try await RawConnection.exchange(server.port, request + "X-Note: caf\u{e9}\r\n\r\n") { Self.isWhole($0, method) }
                #expect(server.hitsByRouter == routerBefore + 1)
                #expect(Self.masked(fromBytes.text) == Self.masked(routed.text), "\(method) \(extra)")
                #expect(fromBytes.text.hasPrefix(extra.isEmpty ? "HTTP/1.1 200 OK\r\n" : "HTTP/1.1 304 Not Modified\r\n"))
            }
        }
    }

    /// Whether `text` holds a whole answer: its head, and the body its `Content-Length` gives (none for HEAD).
    static func isWhole(_ text: String, _ method: String) -> Bool {
        guard let end = text.range(of: "\r\n\r\n") else { return false }
        let length = text[..<end.lowerBound].split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length: ") }
            .flatMap { Int($0.dropFirst(16)) } ?? 0
        return method == "HEAD" || text.utf8.count - text[..<end.upperBound].utf8.count >= length
    }

    /// The answer with the values that differ by design blanked: when it was made (`Date`), how long it took
    /// (`Server-Timing`), and `max-age`, which may tick by a second between the two.
    static func masked(_ text: String) -> String {
        text.split(separator: "\r\n", omittingEmptySubsequences: false).map { line in
            for name in ["Date: ", "Server-Timing: "] where line.hasPrefix(name) { return name + "-" }
            if line.hasPrefix("Cache-Control: public, max-age=") { return "Cache-Control: public, max-age=-" }
            return String(line)
        }.joined(separator: "\r\n")
    }
}
