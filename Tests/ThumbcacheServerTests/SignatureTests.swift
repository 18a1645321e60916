import Foundation
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

@Suite(.serialized) struct SignatureTests {
    static let key = Data((0..<32).map { UInt8($0) })
    static let salt = Data("pepper".utf8)

    @Test func onlyPathsSignedWithTheServersKeyAreServed() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        origin.image("/b.jpg", Fixtures.jpeg)
        let server = try await ServerHarness { $0.key = Self.key; $0.salt = Self.salt }
        let good = ThumbnailPath(signature: "", size: 64, fit: .contain, source: origin.url("/a.jpg"), format: nil)
        let signer = URLSigner(key: Self.key, salt: Self.salt)
        let signature = signer.signature(for: good.signedPart)
        #expect(try await server.request("/\(signature)\(good.signedPart)").status == 200)

        let wrongKey = URLSigner(key: Data(repeating: 7, count: 32), salt: Self.salt).signature(for: good.signedPart)
        var tamperedSize = good
        tamperedSize.size = 65
        var tamperedSource = good
        tamperedSource.encodedSource = Base64URL.encode(origin.url("/b.jpg"))
        for path in ["/\(wrongKey)\(good.signedPart)", "/\(signature)\(tamperedSize.signedPart)",
                     "/\(signature)\(tamperedSource.signedPart)", "/unsafe\(good.signedPart)",
                     "/\(signature.dropLast())\(good.signedPart)"] {
            let answer = try await server.request(path)
            #expect(answer.status == 403 && answer.json["error"] == "bad_signature", "\(path)")
        }
        #expect(origin.count("/b.jpg") == 0, "a refused signature fetches nothing")
        await server.stop()
        await origin.stop()
    }

    @Test func aTruncatedSignatureIsTheHMACsFirstBytes() throws {
        let full = URLSigner(key: Self.key, salt: Self.salt)
        let short = URLSigner(key: Self.key, salt: Self.salt, signatureSize: 8)
        let part = "/rs:fit:50:50/plain/http://images.dev/lorem/ipsum.jpg"
        let mac = try #require(Base64URL.decode(full.signature(for: part)[...]))
        #expect(short.signature(for: part) == Base64URL.encode(mac.prefix(8)))
        #expect(short.accepts(short.signature(for: part), for: part))
        #expect(!short.accepts(full.signature(for: part), for: part), "only the configured length verifies")
        #expect(!full.accepts(short.signature(for: part), for: part))
        var configuration = ServeConfiguration()
        for size in [0, 33] {
            configuration.signatureSize = size
            #expect(configuration.problem()?.contains("--signature-size must be 1-32") == true)
        }
    }

    @Test func serveAcceptsSignaturesOfTheConfiguredSize() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness { $0.key = Self.key; $0.salt = Self.salt; $0.signatureSize = 8 }
        let part = "/rs:fit:50:50/plain/" + origin.url("/a.jpg")
        let short = URLSigner(key: Self.key, salt: Self.salt, signatureSize: 8).signature(for: part)
        #expect(try await server.request("/" + short + part).status == 200)
        let full = URLSigner(key: Self.key, salt: Self.salt).signature(for: part)
        let refused = try await server.request("/" + full + part)
        #expect(refused.status == 403 && refused.json["error"] == "bad_signature")
        await server.stop()
        await origin.stop()
    }

    @Test func aTrustedSignatureIsAcceptedForAnyPath() throws {
        let signer = URLSigner(pairs: [.init(key: Self.key, salt: Self.salt)], trusted: ["truested"])
        #expect(signer.accepts("truested", for: "/rs:fit:50:50/plain/http://a.example/x.jpg"))
        #expect(!signer.accepts("untrusted", for: "/rs:fit:50:50/plain/http://a.example/x.jpg"))
        var configuration = ServeConfiguration()
        for bad in ["", "a/b", "unsafe"] {
            configuration.trustedSignatures = [bad]
            #expect(configuration.problem()?.contains("--trusted-signature") == true, "\(bad)")
        }
    }

    @Test func serveAcceptsTrustedSignaturesBesideSignedPaths() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness { $0.key = Self.key; $0.salt = Self.salt; $0.trustedSignatures = ["cdn-token"] }
        let part = "/rs:fit:50:50/plain/" + origin.url("/a.jpg")
        #expect(try await server.request("/cdn-token" + part).status == 200)
        let short = ThumbnailPath(signature: "cdn-token", size: 32, fit: .contain, source: origin.url("/a.jpg"), format: nil)
        #expect(try await server.request(short.path).status == 200)
        let refused = try await server.request("/other-token" + part)
        #expect(refused.status == 403 && refused.json["error"] == "bad_signature")
        await server.stop()
        await origin.stop()
    }
}
