import Foundation
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
        let harness = try PipelineHarness {
            $0.sourcePolicy = SourcePolicy(allowedPrefixes: [origin.url("/allowed/")], allowLoopback: true, allowPrivate: false)
        }
        let escapes = [
            "/allowed/../private/secret.jpg", "/allowed/%2e%2e/private/secret.jpg", "/allowed/%2E%2e/private/secret.jpg",
            "/allowed/.%2e/private/secret.jpg", "/allowed/./../private/secret.jpg", "/allowed//../../private/secret.jpg",
            "/allowed/..%2fprivate/secret.jpg", "/allowed/%2e%2e%2Fprivate%2Fsecret.jpg", "/allowed/..;/private/secret.jpg",
            "/allowed/..%3B/private/secret.jpg", "/allowed/..%5cprivate%5csecret.jpg", "/allowed/x/../../private/secret.jpg",
            "/allowed/hop", "/allowed/hop2",
        ]
        for path in escapes {
            let failure = await PipelineHTTPTests.failure(harness.pipeline, origin.url(path))
            guard case .sourceRefused? = failure else {
                Issue.record("\(path): \(String(describing: failure))")
                continue
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
