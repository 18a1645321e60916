import Foundation
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// Health, metrics and purge on an in-process server; SIGTERM, kill -9 and `thumbcache rm` on the real
/// `thumbcache` executable in child processes.
@Suite(.serialized) struct LifecycleTests {
    @Test func healthTurns503WhileStopping() async throws {
        let server = try await ServerHarness()
        let ok = try await server.request("/healthz")
        #expect(ok.status == 200 && String(decoding: ok.body, as: UTF8.self) == "ok\n")
        server.endpoints.beginStopping()
        #expect(try await server.request("/healthz").status == 503)
        let refused = try await server.request("/unsafe/64/contain/\(Base64URL.encode("http://127.0.0.1:1/x.jpg"))")
        #expect(refused.status == 503 && refused.header("Retry-After") != nil)
        await server.stop()
    }

    @Test func metricsNamesExistAndCount() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness()
        let path = server.path(origin.url("/a.jpg"), size: 64)
        _ = try await server.request(path)
        _ = try await server.request(path)
        _ = try await server.request("/unsafe/64/contain/\(Base64URL.encode("file:///etc/passwd"))")
        let text = String(decoding: try await server.request("/metrics").body, as: UTF8.self)
        for expected in [
            "thumbcache_requests_total{status=\"200\",served=\"network\"} 1",
            "thumbcache_requests_total{status=\"200\",served=\"memory\"} 1",
            "thumbcache_requests_total{status=\"403\",served=\"none\"} 1",
            "thumbcache_request_duration_seconds_count{kind=\"hit\"} 1",
            "thumbcache_request_duration_seconds_count{kind=\"miss\"} 2",
            "thumbcache_origin_fetch_duration_seconds_count 1",
            "thumbcache_render_duration_seconds_count 1",
            "thumbcache_cache_entries 1",
            "thumbcache_cache_bytes ",
            "thumbcache_memory_cache_hit_ratio 0.5",
            "thumbcache_renders_in_flight 0",
            "thumbcache_renders_queued 0",
            "thumbcache_refusals_total{reason=\"source_refused\"} 1",
        ] {
            #expect(text.contains(expected), "\(expected) in\n\(text)")
        }
        await server.stop()
        await origin.stop()
    }

    @Test func purgeRemovesTheSourceFromDiskAndMemory() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness { $0.adminToken = "s3cret" }
        let path = server.path(origin.url("/a.jpg"), size: 64)
        #expect(try await server.request(path).header("X-Thumbcache") == "network")
        #expect(try await server.request(path).header("X-Thumbcache") == "memory")
        let purge = "/admin/purge/\(Base64URL.encode(origin.url("/a.jpg")))"
        #expect(try await server.request(purge, method: .POST).status == 401)
        #expect(try await server.request(purge, method: .POST, headers: [("Authorization", "Bearer wrong")]).status == 401)
        let done = try await server.request(purge, method: .POST, headers: [("Authorization", "Bearer s3cret")])
        #expect(done.status == 200 && done.jsonObject["removed"] as? Bool == true)
        #expect(try await server.endpoints.pipeline.info(for: ImageSource(origin.url("/a.jpg"))) == nil, "gone from disk")
        #expect(try await server.request(path).header("X-Thumbcache") == "network", "gone from memory")
        #expect(origin.count("/a.jpg") == 2)
        await server.stop()
        await origin.stop()
    }

    @Test func withoutAnAdminTokenThereIsNoPurgeRoute() async throws {
        let server = try await ServerHarness()
        let answer = try await server.request("/admin/purge/\(Base64URL.encode("http://x/y.jpg"))", method: .POST)
        #expect(answer.status == 404 || answer.status == 405)
        await server.stop()
    }

    // MARK: - The executable

    /// SIGTERM with requests in flight: they finish (200), the process exits 0 and the cache opens clean.
    @Test func sigtermFinishesRequestsInFlightAndExitsZero() async throws {
        let origin = try await TestOrigin()
        for index in 0..<4 { origin.image("/slow\(index).jpg", Fixtures.jpeg, delay: .milliseconds(1500)) }
        let child = try ServeProcess()
        let port = try await child.port()
        let requests = (0..<4).map { index in
            Task { try await ServerHarness.request("http://127.0.0.1:\(port)/unsafe/64/contain/\(Base64URL.encode(origin.url("/slow\(index).jpg")))") }
        }
        while origin.total < 4 { try await Task.sleep(for: .milliseconds(20)) }
        kill(child.process.processIdentifier, SIGTERM)
        for request in requests {
            let answer = try await request.value
            #expect(answer.status == 200 && answer.header("X-Thumbcache") == "network")
        }
        #expect(await child.exitStatus() == 0, "\(child.stderr)")
        // Access-log lines are batched (LogLineWriter); the requests finished while stopping are still logged.
        let logged = child.stderr.split(separator: "\n").filter { $0.contains(" GET /-/64/contain/") && $0.contains(" 200 ") }
        #expect(logged.count == 4, "\(child.stderr)")
        let reopened = try ThumbnailPipeline(configuration: PipelineConfiguration(cacheDirectory: child.cacheDirectory))
        #expect(try reopened.info(for: ImageSource(origin.url("/slow0.jpg"))) != nil)
        await reopened.close()
        child.removeCache()
        await origin.stop()
    }

    /// After SIGTERM the server still accepts for `--drain-timeout`: a new connection's /healthz gets 503 and a
    /// thumbnail 503, each with `Connection: close`, so a load balancer sees the drain instead of refused
    /// connections. Polled until the signal is handled (200 before it); a refused connection fails the test.
    @Test func afterSigtermNewConnectionsSeeTheDrain() async throws {
        let child = try ServeProcess(arguments: ["--drain-timeout", "600"])
        defer { child.removeCache() }
        let port = try await child.port()
        let health = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        #expect(try await RawConnection.exchange(port, health) { $0.hasSuffix("ok\n") }.text.hasPrefix("HTTP/1.1 200"))
        kill(child.process.processIdentifier, SIGTERM)
        var draining = ""
        for _ in 0..<600 {
            let answer = try await RawConnection.exchange(port, health) { $0.hasSuffix("\r\n\r\nok\n") }  // a 503 reads to the close
            if answer.text.hasPrefix("HTTP/1.1 503") {
                draining = answer.text
                #expect(answer.closed, "closed after the answer")
                break
            }
            #expect(answer.text.hasPrefix("HTTP/1.1 200"), "\(answer.text.prefix(100))")
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(draining.contains("Connection: close") && draining.hasSuffix("stopping\n"), "\(draining)")
        let thumbnail = "GET /unsafe/64/contain/\(Base64URL.encode("http://127.0.0.1:9/a.jpg")) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let refused = try await RawConnection.exchange(port, thumbnail)
        #expect(refused.text.hasPrefix("HTTP/1.1 503") && refused.text.contains("Connection: close") && refused.closed, "\(refused.text)")
        kill(child.process.processIdentifier, SIGKILL)
        _ = await child.exitStatus()
    }

    /// kill -9 under load, then a new process on the same cache serves what was stored, from disk.
    @Test func killNineUnderLoadThenRestartServes() async throws {
        let origin = try await TestOrigin()
        origin.image("/kept.jpg", Fixtures.jpeg)
        for index in 0..<6 { origin.image("/load\(index).jpg", Fixtures.jpeg, delay: .milliseconds(300)) }
        let first = try ServeProcess()
        let port = try await first.port()
        let kept = "/unsafe/64/contain/\(Base64URL.encode(origin.url("/kept.jpg")))"
        #expect(try await ServerHarness.request("http://127.0.0.1:\(port)\(kept)").status == 200)
        let load = (0..<6).map { index in
            Task { try? await ServerHarness.request("http://127.0.0.1:\(port)/unsafe/64/contain/\(Base64URL.encode(origin.url("/load\(index).jpg")))") }
        }
        while origin.total < 4 { try await Task.sleep(for: .milliseconds(10)) }
        kill(first.process.processIdentifier, SIGKILL)
        #expect(await first.exitStatus() == SIGKILL)
        for task in load { _ = await task.value }
        let second = try ServeProcess(cacheDirectory: first.cacheDirectory)
        let again = try await second.port()
        let answer = try await ServerHarness.request("http://127.0.0.1:\(again)\(kept)")
        #expect(answer.status == 200 && answer.header("X-Thumbcache") == "disk", "\(second.stderr)")
        kill(second.process.processIdentifier, SIGTERM)
        #expect(await second.exitStatus() == 0)
        // `thumbcache rm` removes it offline.
        let rm = try ServeProcess.run(["rm", origin.url("/kept.jpg"), "--cache-dir", first.cacheDirectory.path])
        #expect(rm.status == 0 && rm.stderr.contains("removed"), "\(rm.stderr)")
        let missing = try ServeProcess.run(["rm", origin.url("/kept.jpg"), "--cache-dir", first.cacheDirectory.path])
        #expect(missing.status == 0 && missing.stderr.contains("not cached"))
        first.removeCache()
        await origin.stop()
    }

    @Test func servingPubliclyWithoutAKeyIsRefused() throws {
        let run = try ServeProcess.run(["serve", "--host", "0.0.0.0", "--port", "0", "--cache-dir", "/nonexistent/never-created"])
        #expect(run.status == 64 && run.stderr.contains("--allow-unsigned"), "\(run.stderr)")
        let byEnvironment = try ServeProcess.run(["serve", "--port", "0", "--cache-dir", "/nonexistent/never-created"],
                                                 environment: ["THUMBCACHE_HOST": "0.0.0.0"])
        #expect(byEnvironment.status == 64 && byEnvironment.stderr.contains("0.0.0.0"), "THUMBCACHE_HOST is read: \(byEnvironment.stderr)")
        let badValue = try ServeProcess.run(["serve", "--cache-dir", "/nonexistent/never-created"], environment: ["THUMBCACHE_PORT": "eighty"])
        #expect(badValue.status == 64 && badValue.stderr.contains("THUMBCACHE_PORT"), "\(badValue.stderr)")
        let sign = try ServeProcess.run(["sign", "http://img.example.com/pretty/image.jpg", "--size", "300", "--fit", "cover",
                                         "--format", "png", "--key", "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881",
                                         "--salt", "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"])
        #expect(String(decoding: sign.stdout, as: UTF8.self)
            == "/9fy3TcwiVHPdBcwt-g04o9r63aRL7eOKveVNIldioC8/300/cover/aHR0cDovL2ltZy5leGFtcGxlLmNvbS9wcmV0dHkvaW1hZ2UuanBn.png\n")
    }

    /// `sign` refuses what `serve` would refuse (a format it does not write, a source it does not fetch).
    @Test func signRefusesWhatServeRefuses() throws {
        let svg = try ServeProcess.run(["sign", "http://img.example.com/a.gif", "--size", "64", "--format", "svg"])
        #expect(svg.status == 64 && svg.stderr.contains("svg") && svg.stdout.isEmpty, "\(svg.stderr)")
        let file = try ServeProcess.run(["sign", "file:///etc/passwd", "--size", "64"])
        #expect(file.status == 64 && file.stderr.contains("http and https") && file.stdout.isEmpty, "\(file.stderr)")
    }

    /// `--host [::1]` (the URL spelling) binds ::1. Skipped where the machine has no IPv6 loopback.
    @Test(.enabled(if: Self.hasIPv6Loopback)) func aBracketedIPv6HostBinds() async throws {
        let server = try ServeProcess(arguments: ["--host", "[::1]"])
        defer { server.removeCache() }
        let port = try await server.port()
        #expect(server.stderr.contains("serving on http://[::1]:\(port)"), "\(server.stderr)")
        server.process.interrupt()
        #expect(await server.exitStatus() == 0)
    }

    static let hasIPv6Loopback: Bool = {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0 }
        }
    }()
}
