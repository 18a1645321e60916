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
}
