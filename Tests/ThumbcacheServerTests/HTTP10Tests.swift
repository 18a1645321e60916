import Foundation
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

#if canImport(Glibc)
import Glibc
#endif

/// HTTP/1.0 clients without keep-alive (ApacheBench, old health checkers) read until the server closes:
/// the connection must close after the answer, whichever path answers. Before `HTTP10ConnectionClose` it
/// stayed open until the idle timeout.
@Suite(.serialized) struct HTTP10Tests {
    /// Sends `requests` on a new connection and reads until `done`, the server closes, or 5 s.
    static func exchange(_ port: Int, _ requests: String, until done: @escaping (String) -> Bool = { _ in false })
        async throws -> (text: String, closed: Bool) {
        let socket = try MemoryHitFastPathTests.connect(port: port)
        defer { close(socket) }
        #expect(send(socket, requests, requests.utf8.count, Int32(MSG_NOSIGNAL)) == requests.utf8.count)
        return try await MemoryHitFastPathTests.read(socket, seconds: 5, until: done)
    }

    /// A server whose memory cache holds the thumbnail at `path`.
    static func withCachedThumbnail(_ body: (ServerHarness, String) async throws -> Void) async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness()
        let path = server.path(origin.url("/a.jpg"), size: 64)
        #expect(try await server.request(path).status == 200)
        try await body(server, path)
        await server.stop()
        await origin.stop()
    }

    @Test func anHTTP10RequestWithoutKeepAliveIsAnsweredAndClosed() async throws {
        try await Self.withCachedThumbnail { server, path in
            let fastPathBefore = server.routes.fastPathAnswers.withLock { $0 }
            for (name, target) in [("memory hit", path), ("router", "/healthz")] {
                let answer = try await Self.exchange(server.port, "GET \(target) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
                #expect(answer.text.hasPrefix("HTTP/1.1 200"), "\(name): \(answer.text.prefix(40))")
                let closed = answer.closed
                #expect(closed, "\(name): the connection is closed after the answer")
            }
            // The hit went through the router (which closes), not the fast path.
            #expect(server.routes.fastPathAnswers.withLock { $0 } == fastPathBefore)
        }
    }

    @Test func anHTTP10RequestWithKeepAliveKeepsTheConnection() async throws {
        try await Self.withCachedThumbnail { server, path in
            let request = "GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n"
            let answer = try await Self.exchange(server.port, request + request) {
                $0.components(separatedBy: "X-Thumbcache: memory").count == 3
            }
            #expect(answer.text.components(separatedBy: "HTTP/1.1 200").count == 3, "both answered on one connection")
            let closed = answer.closed
            #expect(!closed)
        }
    }
}
