import Foundation
import OriginTestSupport
import Testing
@testable import ThumbcacheKit

/// Issue 23 §1: a source is normalised before the prefix check, and the URL requested is the one checked, so no
/// spelling of `..` (plain, escaped, with parameters, through a redirect) walks out of an `--allow-source` prefix.
@Suite(.serialized) struct SourcePathTests {
    @Test(arguments: [
        ("http://o/a/./b.jpg", "http://o/a/b.jpg"),
        ("http://o/allowed/../private/x.jpg", "http://o/private/x.jpg"),
        ("http://o/allowed/%2e%2e/private/x.jpg", "http://o/private/x.jpg"),
        ("http://o/allowed/%2E%2E/private/x.jpg", "http://o/private/x.jpg"),
        ("http://o/allowed/.%2e/private/x.jpg", "http://o/private/x.jpg"),
        ("http://o/allowed/%2e./x.jpg", "http://o/x.jpg"),
        ("http://o/allowed/%2e/x.jpg", "http://o/allowed/x.jpg"),
        ("http://o/a/b/c/./../../g", "http://o/a/g"),
        ("http://o/../../x.jpg", "http://o/x.jpg"),
        ("http://o/a/..", "http://o/"),
        ("http://o/a/.", "http://o/a/"),
        ("http://o/a//../b", "http://o/a/b"),
        ("http://o/%7euser/%61.jpg", "http://o/~user/a.jpg"),
        ("http://o/a%3ab%2fc%2Fd.jpg", "http://o/a%3Ab%2Fc%2Fd.jpg"),
        ("http://o/a.jpg?x=../y&z=%2e", "http://o/a.jpg?x=../y&z=%2e"),
        ("http://o", "http://o/"),
        ("http://o/%E2%82%AC.jpg", "http://o/%E2%82%AC.jpg"),
    ])
    func pathsAreNormalised(text: String, normalised: String) throws {
        #expect(try ImageSource(text).normalized == normalised, "\(text)")
    }

    @Test func spellingsOfOnePathShareOneKey() throws {
        let keys = try ["http://o/a/b.jpg", "http://o/a/./b.jpg", "http://o/a/x/../b.jpg", "http://o/%61/b.jpg", "http://O:80/a/b.jpg"]
            .map { try ImageSource($0).cacheKey }
        #expect(Set(keys).count == 1)
    }

    /// Escapes the HTTP client could not request as written (it asked for `/` and the query, outside any
    /// prefix), and a `%` that starts no escape (URLComponents then escaped every `%`): refused as sources.
    @Test(arguments: ["http://o/allowed/%ff?file=../private/x.jpg", "http://o/allowed/%80.jpg", "http://o/allowed/%C0%AE%C0%AE/x",
                      "http://o/allowed/%e0%80%ae/x", "http://o/allowed/..%c0%af/x", "http://o/a.jpg?q=%FF",
                      "http://o/allowed/a%20b%zz.jpg", "http://o/allowed/%", "http://o/allowed/%4"])
    func escapesThatCannotBeRequestedAsWrittenAreRefused(text: String) {
        #expect(throws: PipelineError.self, "\(text)") { try ImageSource(text) }
    }

    @Test func validUTF8EscapesStay() throws {
        #expect(try ImageSource("http://o/caf%C3%A9.jpg?q=%E2%82%AC").normalized == "http://o/caf%C3%A9.jpg?q=%E2%82%AC")
    }

    @Test(arguments: ["/allowed/..%20/x.jpg", "/allowed/..%3F/x.jpg", "/allowed/..%23/x.jpg", "/allowed/.../x.jpg",
                      "/allowed/..%09/x.jpg", "/allowed/%EF%BC%8E%EF%BC%8E/x.jpg", "/allowed/%E2%80%A5/x.jpg", "/allowed/.%20/x.jpg",
                      "/allowed/%EF%BC%8E/x.jpg", "/allowed/..x/y.jpg"])
    func dotLikeSegmentsAreRefusedUnderAPrefix(path: String) throws {
        let policy = SourcePolicy(allowedPrefixes: ["http://o/allowed/"])
        let refusal = policy.refusal(of: try HTTPLocation("http://o" + path))
        #expect(refusal?.contains("dot segment") == true, "\(path): \(String(describing: refusal))")
    }

    @Test(arguments: ["/allowed/.well-known/x.jpg", "/allowed/a..b.jpg", "/allowed/x.jpg", "/allowed/.hidden.jpg", "/allowed/caf%C3%A9.jpg"])
    func ordinaryNamesPassUnderAPrefix(path: String) throws {
        #expect(SourcePolicy(allowedPrefixes: ["http://o/allowed/"]).refusal(of: try HTTPLocation("http://o" + path)) == nil, "\(path)")
    }

    @Test(arguments: [
        ("/allowed/..%2fprivate/x.jpg", "an escaped slash"), ("/allowed/..%2Fprivate/x.jpg", "an escaped slash"),
        ("/allowed/%2e%2e%2fprivate/x.jpg", "an escaped slash"), ("/allowed/..%5cprivate/x.jpg", "a backslash"),
        ("/allowed/..;/private/x.jpg", "a dot segment with parameters"), ("/allowed/..%3b/private/x.jpg", "a dot segment with parameters"),
        ("/allowed/.;x/x.jpg", "a dot segment with parameters"), ("/allowed/x.jpg%00.png", "a NUL"),
    ])
    func whatOriginsReadDifferentlyIsRefusedUnderAPrefix(path: String, reason: String) throws {
        let policy = SourcePolicy(allowedPrefixes: ["http://o/allowed/"])
        let location = try HTTPLocation("http://o" + path)
        #expect(policy.refusal(of: location)?.contains(reason) == true, "\(path): \(String(describing: policy.refusal(of: location)))")
        #expect(SourcePolicy.unrestricted.refusal(of: location) == nil, "without a prefix the path is the origin's business")
    }

    /// Against real servers: every escape attempt is refused and the origin never sees a request outside the
    /// prefix; paths that stay inside are requested exactly as normalised.
    @Test func noSpellingWalksOutOfAnAllowedPrefix() async throws {
        let origin = try OriginServer()
        for path in ["/allowed/x.jpg", "/private/secret.jpg"] {
            origin.route(path) { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=60")], body: Fixtures.jpeg) }
        }
        origin.route("/allowed/hop") { _ in .respond(status: 302, headers: [("Location", "../private/secret.jpg")], body: Data()) }
        origin.route("/allowed/hop2") { _ in
            .respond(status: 302, headers: [("Location", "/allowed/%2e%2e/private/secret.jpg")], body: Data())
        }
        origin.route("/allowed/hop3") { _ in .respond(status: 302, headers: [("Location", "/allowed/%ff?x=redirected-root")], body: Data()) }
        let harness = try PipelineHarness {
            $0.sourcePolicy = SourcePolicy(allowedPrefixes: [origin.url("/allowed/")], allowLoopback: true, allowPrivate: false)
        }
        let escapes = [
            "/allowed/../private/secret.jpg", "/allowed/%2e%2e/private/secret.jpg", "/allowed/%2E%2e/private/secret.jpg",
            "/allowed/.%2e/private/secret.jpg", "/allowed/./../private/secret.jpg", "/allowed//../../private/secret.jpg",
            "/allowed/..%2fprivate/secret.jpg", "/allowed/%2e%2e%2Fprivate%2Fsecret.jpg", "/allowed/..;/private/secret.jpg",
            "/allowed/..%3B/private/secret.jpg", "/allowed/..%5cprivate%5csecret.jpg", "/allowed/x/../../private/secret.jpg",
            "/allowed/hop", "/allowed/hop2", "/allowed/hop3", "/allowed/%ff?file=../private/secret.jpg", "/allowed/%c0%ae%c0%ae/private/secret.jpg",
        ]
        for path in escapes {
            let failure = await PipelineHTTPTests.failure(harness.pipeline, origin.url(path))
            switch failure {
            case .sourceRefused?, .invalidSource?, .invalidRedirect?: continue
            default: Issue.record("\(path): \(String(describing: failure))")
            }
        }
        #expect(origin.requestedPaths.allSatisfy { $0.hasPrefix("/allowed/") }, "\(origin.requestedPaths)")
        #expect(origin.requestCount("/private/secret.jpg") == 0)
        let inside = try await harness.pipeline.thumbnail(for: try ImageSource(origin.url("/allowed/sub/../%78.jpg")), size: 64)
        #expect(inside.servedFrom == .network && inside.source == origin.url("/allowed/x.jpg"))
        #expect(origin.requestedPaths.last == "/allowed/x.jpg", "the normalised URL is the one requested")
        await harness.close()
        origin.shutdown()
    }
}
