import Foundation
import Hummingbird
import NIOCore
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// Issue 23 §2 and §3: `serve` is a shared cache. A source with credentials is refused before anything is
/// fetched, and what the origin meant for one client (`private`, `no-store`, `Set-Cookie`) is neither stored nor
/// let through to the CDNs in front: the directive is passed on.
@Suite(.serialized) struct SharedCacheAnswerTests {
    @Test func sourcesWithCredentialsAreRefused() async throws {
        let origin = try await TestOrigin()
        origin.image("/auth/p.jpg", Fixtures.jpeg)
        let server = try await ServerHarness()
        let host = "127.0.0.1:\(origin.port)"
        for source in ["http://user:pw@\(host)/auth/p.jpg", "http://user@\(host)/auth/p.jpg", "http://user:@\(host)/auth/p.jpg",
                       "http://:pw@\(host)/auth/p.jpg", "http://@\(host)/auth/p.jpg", "HTTP://u%40x:p%3A@\(host)/auth/p.jpg"] {
            let answer = try await server.request(server.path(source, size: 64))
            #expect(answer.status == 400 && answer.json["error"] == "source_credentials", "\(source): \(answer.status) \(answer.json)")
            #expect(answer.json["message"]?.contains("pw") != true, "the password is not echoed")
        }
        #expect(origin.total == 0, "nothing was fetched")
        // The same URL without credentials is an ordinary source: nothing from the refused ones was kept.
        let plain = try await server.request(server.path("http://\(host)/auth/p.jpg", size: 64))
        #expect(plain.status == 200 && plain.header("X-Thumbcache") == "network")
        await server.stop()
        await origin.stop()
    }

    @Test func privateNoStoreAndCookiesAreNotKeptAndArePassedOn() async throws {
        let origin = try await TestOrigin()
        let answers: [(String, HTTPFields, String)] = [
            ("/private.jpg", [.cacheControl: "private, max-age=600"], "private, max-age="),
            ("/no-store.jpg", [.cacheControl: "no-store"], "no-store"),
            ("/cookie.jpg", [.cacheControl: "public, max-age=600", .setCookie: "session=abc"], "private, max-age="),
            ("/vary-star.jpg", [.cacheControl: "max-age=600", .vary: "*"], "no-store"),
        ]
        for (path, headers, _) in answers {
            origin.route(path) { _ in
                var fields = headers
                fields[.contentType] = "image/jpeg"
                return Response(status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: Fixtures.jpeg)))
            }
        }
        origin.image("/public.jpg", Fixtures.jpeg)
        let server = try await ServerHarness()
        for (path, _, expected) in answers {
            for round in 1...2 {
                let answer = try await server.request(server.path(origin.url(path), size: 64))
                #expect(answer.status == 200 && answer.header("X-Thumbcache") == "network", "\(path) #\(round)")
                #expect(answer.header("Cache-Control")?.hasPrefix(expected) == true, "\(path): \(String(describing: answer.header("Cache-Control")))")
                #expect(answer.header("Set-Cookie") == nil)
            }
            #expect(origin.count(path) == 2, "\(path): neither memory nor disk kept it")
        }
        let path = server.path(origin.url("/public.jpg"), size: 64)
        _ = try await server.request(path)
        let hit = try await server.request(path)
        #expect(hit.header("X-Thumbcache") == "memory" && hit.header("Cache-Control")?.hasPrefix("public, max-age=") == true)
        await server.stop()
        await origin.stop()
    }

    /// `no-cache`: stored, but revalidated before every use (never a memory hit), and CDNs are told the same
    /// (the hostile re-run found it served from memory as `public, max-age=599`).
    @Test func noCacheIsRevalidatedEveryTimeAndPassedOn() async throws {
        let origin = try await TestOrigin()
        origin.route("/nc.jpg") { request in
            if request.headers[.ifNoneMatch] == "\"v\"" {
                return Response(status: .notModified, headers: [.eTag: "\"v\"", .cacheControl: "no-cache, max-age=600"])
            }
            return Response(status: .ok, headers: [.contentType: "image/jpeg", .eTag: "\"v\"", .cacheControl: "no-cache, max-age=600"],
                            body: .init(byteBuffer: ByteBuffer(bytes: Fixtures.jpeg)))
        }
        let server = try await ServerHarness()
        let path = server.path(origin.url("/nc.jpg"), size: 64)
        var served: [String?] = []
        for _ in 1...3 {
            let answer = try await server.request(path)
            #expect(answer.status == 200 && answer.header("Cache-Control") == "public, no-cache", "\(String(describing: answer.header("Cache-Control")))")
            served.append(answer.header("X-Thumbcache"))
        }
        #expect(served == ["network", "revalidated", "revalidated"])
        #expect(origin.count("/nc.jpg") == 3, "asked before every use")
        await server.stop()
        await origin.stop()
    }

    @Test func ignoreSetCookieKeepsSuchAnswers() async throws {
        let origin = try await TestOrigin()
        origin.route("/cookie.jpg") { _ in
            Response(status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "max-age=600", .setCookie: "a=b"],
                     body: .init(byteBuffer: ByteBuffer(bytes: Fixtures.jpeg)))
        }
        let server = try await ServerHarness { $0.ignoreSetCookie = true }
        let path = server.path(origin.url("/cookie.jpg"), size: 64)
        #expect(try await server.request(path).header("Cache-Control")?.hasPrefix("public") == true)
        let hit = try await server.request(path)
        #expect(hit.header("X-Thumbcache") == "memory" && hit.header("Set-Cookie") == nil)
        await server.stop()
        await origin.stop()
    }
}
