import Crypto
import Foundation
import ThumbcacheKit

/// imgproxy's URL signature: base64url(HMAC-SHA256(key, salt + path)), the path being everything after the
/// signature segment. Without a key, only the literal `unsafe` is accepted; with one, `unsafe` is refused.
public struct URLSigner: Sendable {
    public static let unsigned = "unsafe"

    private let key: SymmetricKey?
    private let salt: Data

    /// `key` nil: signing is off.
    public init(key: Data?, salt: Data = Data()) {
        self.key = key.map { SymmetricKey(data: $0) }
        self.salt = salt
    }

    public var isSigning: Bool { key != nil }

    /// The signature segment for `signedPart` (`/<size>/<fit>/<source>[.<format>]`).
    public func signature(for signedPart: String) -> String {
        guard let key else { return Self.unsigned }
        return Base64URL.encode(HMAC<SHA256>.authenticationCode(for: salt + Data(signedPart.utf8), using: key))
    }

    /// Whether `signature` is right for `signedPart`; the MAC comparison takes constant time.
    public func accepts(_ signature: String, for signedPart: String) -> Bool {
        guard let key else { return signature == Self.unsigned }
        // Only the canonical spelling: base64 ignores the unused low bits of the last digit, so without this
        // check several signatures would be accepted for one path.
        guard let mac = Base64URL.decode(signature[...]), Base64URL.encode(mac) == signature else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: salt + Data(signedPart.utf8), using: key)
    }

    /// Bytes from hex (`--key`, `--salt`); nil when it is not an even number of hex digits.
    public static func bytes(fromHex hex: String) -> Data? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes = Data(capacity: digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = HexDigit.value(digits[index]), let low = HexDigit.value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
