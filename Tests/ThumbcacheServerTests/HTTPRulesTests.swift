import Foundation
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

#if canImport(Glibc)
import Glibc
#endif

/// The HTTP/1 rules hold on every answer path: a head that NIO's decoder or `RequestHeadRules` rejects or reads
/// differently gets the same answer whether or not `WireHitHandler` (which reads heads itself) is in front,
/// and is never answered from the bytes. HEAD of the fixed routes, and the purge's auth scheme.
@Suite(.serialized) struct HTTPRulesTests {
    /// The status line of the first answer to `bytes` on a new connection.
    static func status(_ port: Int, _ bytes: String) async throws -> String {
        let answer = try await RawConnection.exchange(port, bytes) { $0.contains("\r\n\r\n") }
        return answer.text.components(separatedBy: "\r\n").first ?? ""
    }

    /// Each head, for the path of a thumbnail in memory, with the status RFC 9112 (or llhttp) gives it; nil: the
    /// same as without the wire path, whatever that is.
    static func heads(_ path: String, port: Int) -> [(String, String, Int?)] {
        let get = "GET \(path) HTTP/1.1\r\n"
        return [
            ("two Host fields", get + "Host: 127.0.0.1\r\nHost: 127.0.0.1\r\n\r\n", 400),
            ("two Host fields, other case", get + "Host: 127.0.0.1\r\nhost: example.test\r\n\r\n", 400),
            ("no Host", get + "Accept: */*\r\n\r\n", 400),
            ("a Host with a space", get + "Host: 127.0.0.1 x\r\n\r\n", 400),
            ("a Host with a slash", get + "Host: 127.0.0.1/x\r\n\r\n", 400),
            ("a Host with a quote", get + "Host: \"127.0.0.1\"\r\n\r\n", 400),
            ("two Content-Length: 0", get + "Host: 127.0.0.1\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n", 400),
            ("Content-Length: 00", get + "Host: 127.0.0.1\r\nContent-Length: 00\r\n\r\n", nil),
            ("Content-Length and Transfer-Encoding", get + "Host: 127.0.0.1\r\nContent-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
            ("Transfer-Encoding", get + "Host: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", nil),
            ("whitespace before the colon", get + "Host : 127.0.0.1\r\n\r\n", 400),
            ("obs-fold", get + "Host: 127.0.0.1\r\nX-A: b\r\n c\r\n\r\n", nil),
            ("a bad name byte", get + "Host: 127.0.0.1\r\nX(a): b\r\n\r\n", 400),
            ("absolute form", "GET http://127.0.0.1:\(port)\(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", nil),
            ("a fragment", "GET \(path)#f HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", nil),
            ("HTTP/1.0 without Host", "GET \(path) HTTP/1.0\r\n\r\n", 200),
            ("HTTP/1.0 with two Hosts", "GET \(path) HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        ]
    }

    @Test func headsTheDecoderJudgesGetItsAnswerOnEveryPath() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let wire = try await ServerHarness()
        let decoder = try await ServerHarness { $0.answersHitsFromBytes = false }
        let path = wire.path(origin.url("/a.jpg"), size: 64)
        #expect(try await wire.request(path).status == 200)
        #expect(try await decoder.request(path).status == 200)
        #expect(try await Self.status(wire.port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") == "HTTP/1.1 200 OK")
        let wireAnswers = wire.hitsFromBytes
        for (name, bytes, expected) in Self.heads(path, port: wire.port) {
            let viaWire = try await Self.status(wire.port, bytes)
            let viaDecoder = try await Self.status(decoder.port, bytes.replacingOccurrences(of: ":\(wire.port)/", with: ":\(decoder.port)/"))
            #expect(viaWire == viaDecoder && !viaWire.isEmpty, "\(name): \(viaWire) with the wire path, \(viaDecoder) without")
            if let expected { #expect(viaWire.hasPrefix("HTTP/1.1 \(expected)"), "\(name): \(viaWire)") }
        }
        #expect(wire.hitsFromBytes == wireAnswers, "none of them answered from the bytes")
        #expect(decoder.hitsFromBytes == 0)
        await wire.stop()
        await decoder.stop()
        await origin.stop()
    }

    /// A refused head followed by a hit in the same write: the 400 and nothing else (the connection closes).
    @Test func nothingIsAnsweredFromTheBytesAfterARefusedHost() async throws {
        try await ServerHarness.withCachedThumbnail { server, path in
            let before = server.hitsFromBytes
            let requests = "GET \(path) HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\nGET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            let answer = try await RawConnection.exchange(server.port, requests)
            #expect(answer.text.hasPrefix("HTTP/1.1 400") && answer.closed && !answer.text.contains("X-Thumbcache"), "\(answer.text.prefix(300))")
            #expect(server.hitsFromBytes == before)
        }
    }

    // MARK: - HEAD of /healthz and /metrics

    /// HEAD answers as GET does, without the body, on the main port and on a separate metrics port.
    @Test func headOfHealthAndMetricsAnswersLikeGet() async throws {
        let server = try await ServerHarness()
        let split = try await ServerHarness { $0.metricsPort = 0 }
        // The two ports of `split` are reported in either order: the metrics one serves /metrics.
        let ports = [split.port, split.metricsPort ?? 0]
        let metricsOnly = try await Self.status(ports[1], "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") == "HTTP/1.1 200 OK"
        let metricsPort = metricsOnly ? ports[1] : ports[0]
        for (port, route) in [(server.port, "/healthz"), (server.port, "/metrics"), (metricsPort, "/healthz"), (metricsPort, "/metrics")] {
            let get = try await ServerHarness.request("http://127.0.0.1:\(port)\(route)")
            let head = try await RawConnection.exchange(port, "HEAD \(route) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") { $0.contains("\r\n\r\n") }
            let lines = head.text.components(separatedBy: "\r\n")
            #expect(lines.first == "HTTP/1.1 200 OK" && get.status == 200, "HEAD \(route) on \(port): \(head.text.prefix(200))")
            #expect(lines.contains("Content-Type: \(get.header("Content-Type") ?? "")"), "\(route): \(lines)")
            #expect(head.text.hasSuffix("\r\n\r\n"), "no body: \(head.text.suffix(60).debugDescription)")
        }
        await server.stop()
        await split.stop()
    }

    // MARK: - Purge's auth scheme

    /// RFC 9110 §11.1: the scheme is case-insensitive; the token is not.
    @Test func theBearerSchemeIsCaseInsensitive() async throws {
        let server = try await ServerHarness { $0.adminToken = "s3cret" }
        let purge = "/admin/purge/\(Base64URL.encode("http://127.0.0.1:1/a.jpg"))"
        for accepted in ["Bearer s3cret", "bearer s3cret", "BEARER s3cret", "bEaReR   s3cret"] {
            #expect(try await server.request(purge, method: .POST, headers: [("Authorization", accepted)]).status == 200, "\(accepted)")
        }
        for refused in ["Bearer S3CRET", "Bearer s3cre", "Bearers3cret", "Basic s3cret", "s3cret", "Bearer ", "Bearer s3cret x"] {
            #expect(try await server.request(purge, method: .POST, headers: [("Authorization", refused)]).status == 401, "\(refused)")
        }
        await server.stop()
    }

    @Test(arguments: [("Bearer t", "t"), ("bearer  t ", "t"), ("Bearer", nil), ("Basic t", nil), ("Bearer ", nil)] as [(String, String?)])
    func bearerTokens(_ header: String, _ token: String?) {
        #expect(ThumbcacheEndpoints.bearerToken(header).map(String.init) == token)
    }
}
