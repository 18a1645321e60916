import Foundation
import ImageDecode
import NIOHTTP1
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// Answers of a real server on 127.0.0.1 fetching from a real origin on 127.0.0.1.
@Suite(.serialized) struct ResponseTests {
    @Test func okCarriesCachingHeadersAndHowItWasServed() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness()
        let path = server.path(origin.url("/a.jpg"), size: 128)
        let first = try await server.request(path)
        #expect(first.status == 200)
        #expect(first.header("Content-Type") == "image/jpeg")
        #expect(first.header("Content-Length") == String(first.body.count))
        let etag = try #require(first.header("ETag"))
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && !etag.hasPrefix("W/"), "a strong ETag")
        #expect(first.header("Last-Modified") == "Tue, 24 Nov 2026 10:00:00 GMT")
        let maxAge = first.header("Cache-Control").flatMap { Int($0.replacingOccurrences(of: "public, max-age=", with: "")) }
        #expect(maxAge.map { (3500...3600).contains($0) } == true, "\(String(describing: first.header("Cache-Control")))")
        #expect(first.header("X-Thumbcache") == "network")
        let timing = first.header("Server-Timing") ?? ""
        #expect(timing.contains("fetch;dur=") && timing.contains("render;dur=") && timing.contains("total;dur="), "\(timing)")
        #expect(first.imageSize?.width == 128)
        let second = try await server.request(path)
        #expect(second.header("X-Thumbcache") == "memory" && second.header("ETag") == etag && second.body == first.body)
        #expect(origin.count("/a.jpg") == 1)
        await server.stop()
        await origin.stop()
    }

    @Test func conditionalRequestsGet304WithTheSameCachingHeaders() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness()
        let path = server.path(origin.url("/a.jpg"), size: 64)
        let full = try await server.request(path)
        let etag = try #require(full.header("ETag"))
        let byTag = try await server.request(path, headers: [("If-None-Match", "\"other\", \(etag)")])
        #expect(byTag.status == 304 && byTag.body.isEmpty)
        #expect(byTag.header("ETag") == etag && byTag.header("Cache-Control")?.hasPrefix("public, max-age=") == true)
        #expect(byTag.header("Last-Modified") == full.header("Last-Modified"))
        let byDate = try await server.request(path, headers: [("If-Modified-Since", "Tue, 24 Nov 2026 10:00:00 GMT")])
        #expect(byDate.status == 304)
        let older = try await server.request(path, headers: [("If-Modified-Since", "Mon, 23 Nov 2026 10:00:00 GMT")])
        #expect(older.status == 200 && older.body == full.body)
        let otherTag = try await server.request(path, headers: [("If-None-Match", "\"nope\"")])
        #expect(otherTag.status == 200)
        await server.stop()
        await origin.stop()
    }

    @Test func headHasTheHeadersAndNoBody() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness()
        let path = server.path(origin.url("/a.jpg"), size: 64)
        let head = try await server.request(path, method: .HEAD)
        #expect(head.status == 200 && head.body.isEmpty && head.header("ETag") != nil)
        let get = try await server.request(path)
        #expect(head.header("Content-Length") == String(get.body.count) && head.header("ETag") == get.header("ETag"))
        await server.stop()
        await origin.stop()
    }

    @Test func maxAgeIsClampedToTheConfiguredBounds() async throws {
        let origin = try await TestOrigin()
        origin.image("/short.jpg", Fixtures.jpeg, maxAge: 5)
        origin.image("/long.jpg", Fixtures.jpeg, maxAge: 900_000_000)
        let server = try await ServerHarness { $0.minTTL = 60; $0.maxTTL = 86_400 }
        #expect(try await server.request(server.path(origin.url("/short.jpg"), size: 64)).header("Cache-Control") == "public, max-age=60")
        #expect(try await server.request(server.path(origin.url("/long.jpg"), size: 64)).header("Cache-Control") == "public, max-age=86400")
        await server.stop()
        await origin.stop()
    }

    @Test func coverIsASquareAndContainKeepsTheShape() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)  // 227x149
        let server = try await ServerHarness()
        let cover = try await server.request(server.path(origin.url("/a.jpg"), size: 100, fit: .cover))
        #expect(cover.imageSize?.width == 100 && cover.imageSize?.height == 100)
        let contain = try await server.request(server.path(origin.url("/a.jpg"), size: 100, fit: .contain, format: .png))
        #expect(contain.header("Content-Type") == "image/png" && contain.imageSize?.width == 100 && contain.imageSize?.height == 66)
        await server.stop()
        await origin.stop()
    }

    /// Each failure has its status, a JSON body {"error", "message"} and Cache-Control: no-store.
    @Test func everyFailureHasItsStatus() async throws {
        let origin = try await TestOrigin()
        origin.image("/ok.jpg", Fixtures.jpeg)
        origin.route("/gone.jpg") { _ in .init(status: .gone) }
        origin.route("/broken.jpg") { _ in .init(status: .internalServerError) }
        origin.image("/page.html", Data("<html>hello</html>".utf8), type: "text/html")
        origin.image("/corrupt.jpg", Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 0x42, count: 4000))
        origin.image("/big.jpg", Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 0, count: 300_000))
        origin.image("/slow.jpg", Fixtures.jpeg, delay: .seconds(3))
        let stopped = try await TestOrigin()
        let refusedPort = stopped.port
        await stopped.stop()
        // The default request deadline (60 s in the harness): a short one would turn a slow answer on a busy machine
        // into a 504; the slow origin's 504 is asked of a server of its own below.
        let server = try await ServerHarness(pipeline: {
            $0.fetchLimits.maxDownloadBytes = 200_000
            $0.maxPixels = 20_000  // the fixture has 33,823
        })
        let cases: [(String, Int, String)] = [
            (server.path(origin.url("/missing.jpg"), size: 64), 404, "origin_not_found"),
            (server.path(origin.url("/gone.jpg"), size: 64), 404, "origin_not_found"),
            (server.path(origin.url("/broken.jpg"), size: 64), 502, "origin_failed"),
            (server.path(origin.url("/page.html"), size: 64), 422, "not_an_image"),
            (server.path(origin.url("/corrupt.jpg"), size: 64), 422, "bad_image"),
            (server.path(origin.url("/ok.jpg"), size: 64), 422, "too_many_pixels"),
            (server.path(origin.url("/big.jpg"), size: 64), 413, "too_large"),
            (server.path("http://127.0.0.1:\(refusedPort)/x.jpg", size: 64), 502, "origin_failed"),
            (server.path("file:///etc/passwd", size: 64), 403, "source_refused"),
            (server.path("ftp://127.0.0.1/x.jpg", size: 64), 403, "source_refused"),
            (server.path("http://", size: 64), 400, "bad_source"),
            ("/unsafe/64/contain", 400, "bad_request"),
            ("/unsafe/0/contain/\(Base64URL.encode(origin.url("/ok.jpg")))", 400, "bad_request"),
            ("/unsafe/4096/contain/\(Base64URL.encode(origin.url("/ok.jpg")))", 400, "bad_request"),
            ("/unsafe/64/fill/\(Base64URL.encode(origin.url("/ok.jpg")))", 400, "bad_request"),
            ("/unsafe/64/contain/%%%", 400, "bad_request"),
            ("/signed/64/contain/\(Base64URL.encode(origin.url("/ok.jpg")))", 403, "bad_signature"),
        ]
        for (path, status, code) in cases {
            let answer = try await server.request(path)
            #expect(answer.status == status, "\(path): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
            #expect(answer.json["error"] == code && answer.json["message"]?.isEmpty == false, "\(path): \(answer.json)")
            #expect(answer.header("Cache-Control") == "no-store" && answer.header("Content-Type") == "application/json")
        }
        #expect(try await server.request(server.path(origin.url("/gone.jpg"), size: 64)).json["message"]?.contains("410") == true,
                "the message says which 4xx")
        await server.stop()
        // The origin answers after 3 s, the request deadline is 0.8 s: a 504 whatever the machine's speed.
        let hurried = try await ServerHarness(configure: { $0.timeout = .milliseconds(800) })
        let slow = try await hurried.request(hurried.path(origin.url("/slow.jpg"), size: 64))
        #expect(slow.status == 504 && slow.json["error"] == "timeout", "\(slow.status) \(slow.json)")
        #expect(slow.header("Cache-Control") == "no-store" && slow.header("Content-Type") == "application/json")
        await hurried.stop()
        await origin.stop()
    }

    /// The pipeline's own download deadline (not the request deadline) is a 504 too, by its typed case.
    @Test func originTimeoutIs504() async throws {
        let origin = try await TestOrigin()
        origin.image("/slow.jpg", Fixtures.jpeg, delay: .seconds(3))
        let server = try await ServerHarness(pipeline: { $0.fetchLimits.totalTimeout = .seconds(1) })
        let answer = try await server.request(server.path(origin.url("/slow.jpg"), size: 64))
        #expect(answer.status == 504 && answer.json["error"] == "origin_timeout", "\(answer.json)")
        await server.stop()
        await origin.stop()
    }

    @Test func pipelineErrorsMapByCase() {
        #expect(ServeError(.overloaded("x")).status == .serviceUnavailable && ServeError(.overloaded("x")).retryAfter == 1)
        #expect(ServeError(.image(url: "u", .tooLarge(width: 9, height: 9, limit: 1))).status == .unprocessableContent)
        #expect(ServeError(.httpStatus(url: "u", status: 503)).status == .badGateway)
        #expect(ServeError(.timeout(url: "u", reason: "r")).status == .gatewayTimeout)
        #expect(ServeError(.network(url: "u", reason: "timed out")).status == .badGateway, "not by the message's words")
        #expect(ServeError(.sourceRefused(url: "u", reason: "r")).status == .forbidden)
        // A codec library the machine lacks is the server's fault, not the image's.
        let unavailable = ServeError(.image(url: "u", .libraryUnavailable("libheif.so.1 could not be loaded")))
        #expect(unavailable.status == .internalServerError && unavailable.code == "codec_unavailable")
        #expect(ServeError(.image(url: "u", .corrupt("x"))).code == "bad_image")
    }
}
