import Foundation
import NIOCore
import OriginTestSupport
import Testing
@testable import ThumbcacheKit

/// Misbehaving origins on 127.0.0.1: slow and endless bodies, partial answers, credentials, redirects that
/// loop or lead nowhere, and the messages each gives.
@Suite(.serialized) struct HTTPHardeningTests {
    let server: OriginServer

    init() throws { server = try OriginServer() }

    /// The error a get fails with (nil: it succeeded), awaited to the end with no clock of the test's own: every
    /// origin reply here ends after a bounded number of bytes, so a get ends even on code without a body deadline,
    /// and no verdict depends on how fast a loaded machine runs (a 240 s bound here once failed a correct run whose
    /// tasks waited minutes for the cooperative pool behind other suites' CPU-bound tests).
    static func failure(_ pipeline: ThumbnailPipeline, _ url: String) async -> PipelineError? {
        await PipelineHTTPTests.failure(pipeline, url)
    }

    /// The origin's record of a `.stream` reply once the client has closed its connection or the body has ended,
    /// or once `bytes` were sent (a client that keeps reading: the bound is bytes, not time).
    func closedEarly(_ path: String, orAfter bytes: Int) async -> OriginServer.StreamRecord? {
        await server.streamEnded(path, orAfter: bytes)
    }

    @Test func aTricklingBodyIsCutAtTheOverallDeadline() async throws {
        // 100 bytes every 500 ms: the body arrives all along and takes at least 28 s, where the deadline is 1 s
        // (without a deadline over the body, this get succeeds once the body has ended). The read timeout is put
        // out of the way, so the overall deadline is the only thing that can end this get early; and the fetcher
        // judges its deadline by the clock, so a loaded machine that runs the timer late still gets the timeout.
        server.route("/drip.jpg") { _ in .trickle(body: Fixtures.jpeg, chunk: 100, delay: .milliseconds(500)) }
        let harness = try PipelineHarness {
            $0.fetchLimits.totalTimeout = .seconds(1)
            $0.fetchLimits.readTimeout = .seconds(24 * 3600)
        }
        let error = await Self.failure(harness.pipeline, server.url("/drip.jpg"))
        // No early return: the harness must be closed on every path (an unclosed HTTP client traps in its deinit).
        if case .timeout(_, let reason)? = error {
            #expect(reason == "the whole request took longer than the overall timeout of 1 s")
        } else {
            Issue.record("got \(String(describing: error))")
        }
        #expect(error?.exitCode == 3)
        #expect(harness.entryFiles.isEmpty && harness.downloadFiles.isEmpty)
        await harness.close()
        server.shutdown()
    }

    @Test func abandonedBodiesCloseTheirConnection() async throws {
        let gigabyte = 1 << 30
        let jpegHead = Fixtures.jpeg.prefix(1000)
        server.route("/endless.jpg") { _ in .stream(head: jpegHead, declaredLength: gigabyte, chunk: 64 << 10, delay: .milliseconds(10)) }
        server.route("/page.jpg") { _ in .stream(head: Data("<!doctype html>".utf8), declaredLength: gigabyte, chunk: 64 << 10, delay: .milliseconds(10)) }
        server.route("/chunked.jpg") { _ in .stream(head: jpegHead, declaredLength: nil, chunk: 64 << 10, delay: .milliseconds(2)) }
        let harness = try PipelineHarness {
            $0.fetchLimits.totalTimeout = .seconds(1)
            $0.fetchLimits.readTimeout = .seconds(24 * 3600)
            $0.fetchLimits.maxDownloadBytes = 2 * gigabyte  // over the declared length: only the deadline stops it
        }
        let timedOut = await Self.failure(harness.pipeline, server.url("/endless.jpg"))
        #expect(timedOut?.description.contains("overall timeout") == true, "\(String(describing: timedOut))")
        // Refused by its first bytes: no deadline that a busy machine could reach before those bytes are read (the
        // stream ends by itself after its declared gigabyte, which bounds a failing run).
        let sniffing = try PipelineHarness {
            $0.fetchLimits.totalTimeout = .seconds(24 * 3600)
            $0.fetchLimits.readTimeout = .seconds(24 * 3600)
            $0.fetchLimits.maxDownloadBytes = 2 * gigabyte
        }
        let page = await Self.failure(sniffing.pipeline, server.url("/page.jpg"))
        if case .notAnImage? = page {} else { Issue.record("got \(String(describing: page))") }
        let limited = try PipelineHarness {
            $0.fetchLimits.maxDownloadBytes = 1 << 20
            ($0.fetchLimits.totalTimeout, $0.fetchLimits.readTimeout) = (.seconds(24 * 3600), .seconds(24 * 3600))
        }
        let tooLarge = await Self.failure(limited.pipeline, server.url("/chunked.jpg"))
        if case .downloadTooLarge? = tooLarge {} else { Issue.record("got \(String(describing: tooLarge))") }
        for path in ["/endless.jpg", "/page.jpg", "/chunked.jpg"] {
            let record = await closedEarly(path, orAfter: 64 << 20)
            #expect(record?.closedEarly == true && record?.finished == false, "\(path): \(String(describing: record))")
            #expect((record?.bytesSent ?? .max) < 64 << 20, "\(path): abandoned, not read to the end: \(String(describing: record))")
        }
        #expect(harness.downloadFiles.isEmpty && limited.downloadFiles.isEmpty && sniffing.downloadFiles.isEmpty)
        await limited.close()
        await sniffing.close()
        await harness.close()
        server.shutdown()
    }

    @Test func partialContentIsNotTheImage() async throws {
        server.route("/part.jpg") { _ in
            .respond(status: 206, headers: [("Content-Range", "bytes 0-\(Fixtures.jpeg.count - 1)/99999"), ("Cache-Control", "max-age=600")],
                     body: Fixtures.jpeg)
        }
        let harness = try PipelineHarness()
        let error = await PipelineHTTPTests.failure(harness.pipeline, server.url("/part.jpg"))
        if case .partialContent? = error {} else { Issue.record("got \(String(describing: error))") }
        #expect(error?.description.contains("206 Partial Content") == true && error?.exitCode == 4)
        #expect(server.requests("/part.jpg").first?.headers["range"] == nil, "thumbcache asked for the whole image")
        #expect(harness.entryFiles.isEmpty)
        await harness.close()
        server.shutdown()
    }

    @Test func credentialsGoToTheirOriginOnlyAndAreNeverStored() async throws {
        let expected = "Basic " + Data("alice:s3cr@t".utf8).base64EncodedString()
        let guarded: OriginServer.Route = { request in
            request.headers["authorization"] == expected
                ? .respond(status: 200, headers: [("Cache-Control", "max-age=600")], body: Fixtures.jpeg)
                : .respond(status: 401, headers: [("WWW-Authenticate", "Basic realm=x")], body: Data())
        }
        server.route("/secret.jpg", guarded)
        server.route("/other-secret.jpg", guarded)
        let other = try OriginServer()
        other.route("/x.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=600")], body: Fixtures.jpeg) }
        let otherURL = other.url("/x.jpg")
        server.route("/hop") { _ in .respond(status: 302, headers: [("Location", "/secret.jpg")], body: Data()) }
        server.route("/away") { _ in .respond(status: 302, headers: [("Location", otherURL)], body: Data()) }
        let credentials = "alice:s3cr%40t@"
        let secret = server.url("/secret.jpg").replacingOccurrences(of: "://", with: "://\(credentials)")
        let harness = try PipelineHarness()
        let source = try ImageSource(secret)
        let result = try await harness.pipeline.thumbnail(for: source, size: 64)
        #expect(result.servedFrom == .network && !result.source.contains("s3cr"))
        #expect(source.cacheKey == (try ImageSource(server.url("/secret.jpg"))).cacheKey)
        let info = try #require(try harness.pipeline.info(for: source))
        #expect(info.metadata.url == server.url("/secret.jpg"))
        for file in harness.entryFiles + ["journal"] {
            let bytes = try Data(contentsOf: harness.directory.appendingPathComponent("entries/\(file)"))
            #expect(bytes.range(of: Data("s3cr".utf8)) == nil && bytes.range(of: Data("alice".utf8)) == nil, "\(file)")
        }
        // Same origin after a redirect: still sent. Another origin: never.
        let hop = server.url("/hop").replacingOccurrences(of: "://", with: "://\(credentials)")
        #expect(try await harness.pipeline.thumbnail(for: try ImageSource(hop), size: 64).servedFrom == .network)
        let away = server.url("/away").replacingOccurrences(of: "://", with: "://\(credentials)")
        #expect(try await harness.pipeline.thumbnail(for: try ImageSource(away), size: 64).servedFrom == .network)
        #expect(other.requests("/x.jpg").count == 1 && other.requests("/x.jpg").first?.headers["authorization"] == nil)
        let wrong = server.url("/other-secret.jpg").replacingOccurrences(of: "://", with: "://alice:wrong@")
        let denied = await PipelineHTTPTests.failure(harness.pipeline, wrong)
        if case .httpStatus(_, 401)? = denied {} else { Issue.record("got \(String(describing: denied))") }
        #expect(denied?.description.contains("wrong") == false && denied?.description.contains("alice") == false)
        await harness.close()
        other.shutdown()
        server.shutdown()
    }

    @Test func redirectsThatLoopOrCannotBeFollowedSaySo() async throws {
        server.route("/a") { _ in .respond(status: 302, headers: [("Location", "/b")], body: Data()) }
        server.route("/b") { _ in .respond(status: 301, headers: [("Location", "/a")], body: Data()) }
        server.route("/bad-port") { _ in .respond(status: 302, headers: [("Location", "http://127.0.0.1:99999/x.jpg")], body: Data()) }
        server.route("/bad-name-port") { _ in .respond(status: 302, headers: [("Location", "http://localhost:65537/x.jpg")], body: Data()) }
        let harness = try PipelineHarness()
        let cycle = await PipelineHTTPTests.failure(harness.pipeline, server.url("/a"))
        #expect(cycle?.description == "redirect cycle: \(server.url("/a")) → \(server.url("/b")) → \(server.url("/a"))")
        #expect(cycle?.exitCode == 3)
        #expect(server.requestCount("/a") == 1 && server.requestCount("/b") == 1)
        for path in ["/bad-port", "/bad-name-port"] {
            let error = await PipelineHTTPTests.failure(harness.pipeline, server.url(path))
            guard case .invalidRedirect(_, _, let reason)? = error else { Issue.record("\(path): got \(String(describing: error))"); continue }
            #expect(reason.hasSuffix("is not in 1-65535") && error?.exitCode == 4, "\(reason)")
        }
        await harness.close()
        server.shutdown()
    }

    @Test func aCompressedBodyIsNamedAsSuch() async throws {
        let gzipped = Data([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]) + Data(count: 200)
        server.route("/z.jpg") { _ in .respond(status: 200, headers: [("Content-Encoding", "gzip"), ("Content-Type", "image/jpeg")], body: gzipped) }
        let harness = try PipelineHarness()
        let error = await PipelineHTTPTests.failure(harness.pipeline, server.url("/z.jpg"))
        if case .encodedBody(_, "gzip")? = error {} else { Issue.record("got \(String(describing: error))") }
        #expect(error?.description.contains("compressed with Content-Encoding: gzip, which thumbcache does not decompress") == true)
        #expect(error?.exitCode == 5)
        #expect(server.requests("/z.jpg").first?.headers["accept-encoding"] == "identity")
        await harness.close()
        server.shutdown()
    }

    @Test func sourcesThatAreNotRegularFilesSayWhatTheyAre() async throws {
        let harness = try PipelineHarness()
        for (path, kind) in [("/dev/zero", "a character device"), (harness.directory.path, "a directory")] {
            let error = await PipelineHTTPTests.failure(harness.pipeline, path)
            #expect(error?.description == "cannot read \(path): not a regular file (\(kind))", "\(String(describing: error))")
            #expect(error?.exitCode == 5)
        }
        await harness.close()
        server.shutdown()
    }
}
