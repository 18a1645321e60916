import Foundation
import Hummingbird
import ImageDecode
import Testing
@testable import ThumbcacheServer

@Suite struct URLGrammarTests {
    static let source = "http://img.example.com/pretty/image.jpg"

    @Test func parsesEveryPart() throws {
        let encoded = Base64URL.encode(Self.source)
        let path = try ThumbnailPath(segments: ["unsafe", "300", "cover", "\(encoded).png"], maxSize: 2048)
        #expect(path.signature == "unsafe" && path.size == 300 && path.fit == .cover && path.format == .png)
        #expect(path.source == Self.source && path.encodedSource == encoded)
        #expect(path.signedPart == "/300/cover/\(encoded).png")
        let plain = try ThumbnailPath(segments: ["unsafe", "64", "contain", encoded[...]], maxSize: 2048)
        #expect(plain.format == nil && plain.signedPart == "/64/contain/\(encoded)")
    }

    @Test(arguments: [
        ["unsafe", "300", "cover"],
        ["unsafe", "0", "cover", "aHR0cDovL3g"],
        ["unsafe", "2049", "cover", "aHR0cDovL3g"],
        ["unsafe", "+12", "cover", "aHR0cDovL3g"],
        ["unsafe", "12", "stretch", "aHR0cDovL3g"],
        ["unsafe", "12", "cover", "aHR0cDovL3g.jp2"],
        ["unsafe", "12", "cover", "aHR0cDovL3g="],
        ["unsafe", "12", "cover", "a*b"],
        ["unsafe", "12", "cover", "a"],
    ])
    func malformedPathsAreBadRequests(_ segments: [String]) {
        #expect(throws: ServeError.self) { try ThumbnailPath(segments: segments.map { $0[...] }, maxSize: 2048) }
        do { _ = try ThumbnailPath(segments: segments.map { $0[...] }, maxSize: 2048) } catch { #expect(error.status == .badRequest) }
    }

    @Test func base64URLRoundTripsWithoutPadding() {
        for text in ["a", "ab", "abc", "abcd", "http://x/?q=ü&r=~~~>>>"] {
            let encoded = Base64URL.encode(text)
            #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
            #expect(Base64URL.decode(encoded[...]).map { String(decoding: $0, as: UTF8.self) } == text)
        }
    }

    /// The expected signature comes from Python's hmac module (an independent implementation of imgproxy's
    /// construction): base64url(HMAC-SHA256(key, salt + path)).
    @Test func signatureMatchesAnIndependentImplementation() throws {
        let signer = URLSigner(
            key: URLSigner.bytes(fromHex: "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"),
            salt: try #require(URLSigner.bytes(fromHex: "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5")))
        let path = ThumbnailPath(signature: "", size: 300, fit: .cover, source: Self.source, format: .png)
        #expect(path.signedPart == "/300/cover/aHR0cDovL2ltZy5leGFtcGxlLmNvbS9wcmV0dHkvaW1hZ2UuanBn.png")
        #expect(signer.signature(for: path.signedPart) == "9fy3TcwiVHPdBcwt-g04o9r63aRL7eOKveVNIldioC8")
        #expect(signer.accepts("9fy3TcwiVHPdBcwt-g04o9r63aRL7eOKveVNIldioC8", for: path.signedPart))
        #expect(!signer.accepts("9fy3TcwiVHPdBcwt-g04o9r63aRL7eOKveVNIldioC9", for: path.signedPart))
        #expect(!signer.accepts("unsafe", for: path.signedPart))
        #expect(!signer.accepts("", for: path.signedPart))
    }

    @Test func withoutAKeyOnlyUnsafeIsAccepted() {
        let signer = URLSigner(key: nil)
        #expect(signer.accepts("unsafe", for: "/1/contain/x") && !signer.accepts("_", for: "/1/contain/x"))
        #expect(signer.signature(for: "/1/contain/x") == "unsafe")
    }

    @Test func hexKeys() {
        #expect(URLSigner.bytes(fromHex: "00ff7F") == Data([0, 255, 127]))
        #expect(URLSigner.bytes(fromHex: "abc") == nil && URLSigner.bytes(fromHex: "zz") == nil)
    }

    @Test func publicBindWithoutKeyIsRefused() {
        var configuration = ServeConfiguration()
        configuration.host = "0.0.0.0"
        #expect(configuration.problem()?.contains("--allow-unsigned") == true)
        configuration.allowUnsigned = true
        #expect(configuration.problem() == nil)
        configuration.allowUnsigned = false
        configuration.key = Data([1, 2, 3])
        #expect(configuration.problem() == nil)
        configuration = ServeConfiguration()
        #expect(configuration.problem() == nil, "loopback without a key is fine")
    }

    @Test func accessLogDropsTheSignature() {
        #expect(AccessLog.loggedPath("/sig/64/contain/abc").text == "/-/64/contain/abc")
        #expect(AccessLog.loggedPath("/healthz").text == "/healthz")
        #expect(AccessLog.loggedPath("/sig/rs:fill:300:200/g:sm/YWJj.webp").text == "/-/rs:fill:300:200/g:sm/YWJj.webp")
        #expect(AccessLog.loggedPath("/sig/plain/http://a/b.jpg").text == "/-/plain/http://a/b.jpg")
    }
}
