import Crypto
import Foundation
import Testing
import Processing

/// The fixture's signatures verify as imgproxy checks them: base64url(HMAC-SHA256(key, salt + signedPart)).
/// (Kept out of the scratch package used while developing: it needs swift-crypto.)
@Suite struct SignatureTests {
    @Test func signedFixtureURLsVerifyWithTheirKeyAndSalt() throws {
        let fixture = try ImgproxyURLFixture()
        let key = SymmetricKey(data: ImgproxyURLFixture.bytes(hex: fixture.keyHex))
        let salt = ImgproxyURLFixture.bytes(hex: fixture.saltHex)
        for row in fixture.rows where row.signed {
            let path = try ProcessingPath(path: row.url, presets: fixture.presets)
            let mac = HMAC<SHA256>.authenticationCode(for: salt + Array(path.signedPart.utf8), using: key)
            let expected = Data(mac).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(path.signature == expected, "\(row.url)")
            // A changed option no longer verifies.
            let tampered = HMAC<SHA256>.authenticationCode(for: salt + Array((path.signedPart + "x").utf8), using: key)
            #expect(Data(tampered) != Data(mac))
        }
    }
}
