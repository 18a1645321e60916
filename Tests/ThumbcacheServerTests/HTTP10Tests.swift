import Foundation
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

#if canImport(Glibc)
import Glibc
#endif

/// HTTP/1.0 clients without keep-alive (ApacheBench, old health checkers) read until the server closes:
/// the connection must close after the answer, whichever path answers. Before `RequestHeadRules` it
/// stayed open until the idle timeout.
@Suite(.serialized) struct HTTP10Tests {
    @Test func anHTTP10RequestWithoutKeepAliveIsAnsweredAndClosed() async throws {
        try await ServerHarness.withCachedThumbnail { server, path in
            let fromBytesBefore = server.hitsFromBytes
            for (name, target) in [("memory hit", path), ("router", "/healthz")] {
                let answer = try await RawConnection.exchange(server.port, "GET \(target) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
                #expect(answer.text.hasPrefix("HTTP/1.1 200"), "\(name): \(answer.text.prefix(40))")
                let closed = answer.closed
                #expect(closed, "\(name): the connection is closed after the answer")
            }
            // The hit went through the router (which closes), not the fast path.
            #expect(server.hitsFromBytes == fromBytesBefore)
        }
    }

    @Test func anHTTP10RequestWithKeepAliveKeepsTheConnection() async throws {
        try await ServerHarness.withCachedThumbnail { server, path in
            let request = "GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n"
            let answer = try await RawConnection.exchange(server.port, request + request) {
                $0.components(separatedBy: "X-Thumbcache: memory").count == 3
            }
            #expect(answer.text.components(separatedBy: "HTTP/1.1 200").count == 3, "both answered on one connection")
            let closed = answer.closed
            #expect(!closed)
        }
    }
}
