import Foundation
import Hummingbird
import Testing
@testable import ThumbcacheKit
@testable import ThumbcacheServer

/// `thumbcache serve --cache-key-ignore-query`: presigned URLs of one object share one entry, and the origin gets
/// each URL's whole query when it is asked.
@Suite(.serialized) struct CacheKeyServeTests {
    @Test func presignedURLsShareOneEntryThroughServe() async throws {
        let origin = try await TestOrigin()
        let queries = Locked<[String]>([])
        origin.route("/bucket/k.jpg") { request in
            queries.withLock { $0.append(request.uri.query ?? "") }
            return Response(status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "max-age=3600"],
                            body: .init(byteBuffer: ByteBuffer(bytes: Fixtures.jpeg)))
        }
        let child = try ServeProcess(arguments: ["--cache-key-ignore-query", "X-Amz-*"])
        defer { child.removeCache() }
        let port = try await child.port()
        func get(_ query: String) async throws -> ServerHarness.Answer {
            let source = origin.url("/bucket/k.jpg?\(query)")
            return try await ServerHarness.request("http://127.0.0.1:\(port)/unsafe/64/contain/\(Base64URL.encode(source))")
        }
        let first = try await get("X-Amz-Signature=aaaa&v=1")
        let second = try await get("X-Amz-Signature=bbbb&v=1")
        #expect(first.status == 200 && first.header("X-Thumbcache") == "network", "\(first.status) \(first.json)")
        #expect(second.status == 200 && second.header("X-Thumbcache") == "memory", "\(second.header("X-Thumbcache") ?? "")")
        let other = try await get("X-Amz-Signature=aaaa&v=2")
        #expect(other.header("X-Thumbcache") == "network", "a parameter not ignored separates entries")
        #expect(queries.withLock { $0 } == ["X-Amz-Signature=aaaa&v=1", "X-Amz-Signature=aaaa&v=2"])
        kill(child.process.processIdentifier, SIGTERM)
        #expect(await child.exitStatus() == 0, "\(child.stderr)")
        await origin.stop()
    }
}
