import Crypto
import Foundation
import ThumbcacheKit

/// imgproxy's URL signature: base64url(HMAC-SHA256(key, salt + path)), the path being everything after the
/// signature segment. Several key/salt pairs may be configured so keys rotate without downtime: paths are signed
/// with the first, and a signature by any of them is accepted (imgproxy's comma-separated `IMGPROXY_KEY`/`SALT`).
/// Without a key, the short grammar accepts only the literal `unsafe`; the processing grammar accepts anything,
/// as imgproxy does (`acceptsUnsigned`). A signature may be truncated to its first `signatureSize` bytes
/// (imgproxy's `IMGPROXY_SIGNATURE_SIZE`), for shorter URLs.
package struct URLSigner: Sendable {
    package static let unsigned = "unsafe"
    /// The bytes a signature may keep: HMAC-SHA256 has 32.
    package static let signatureSizes = 1...32

    /// One key and its salt.
    package struct KeyPair: Sendable, Equatable {
        package var key: Data
        package var salt: Data

        package init(key: Data, salt: Data = Data()) {
            (self.key, self.salt) = (key, salt)
        }
    }

    private let pairs: [(key: SymmetricKey, salt: Data)]
    private let signatureSize: Int
    /// imgproxy's `IMGPROXY_TRUSTED_SIGNATURES`: segments accepted as they are, with no HMAC (a CDN's or an
    /// internal client's fixed token).
    private let trusted: Set<String>

    /// `key` nil: signing is off.
    package init(key: Data?, salt: Data = Data(), signatureSize: Int = 32) {
        self.init(pairs: key.map { [KeyPair(key: $0, salt: salt)] } ?? [], signatureSize: signatureSize)
    }

    /// No pairs: signing is off. The first pair signs; every pair verifies. `signatureSize` is clamped to
    /// `signatureSizes` (the configuration refuses anything else before this).
    package init(pairs: [KeyPair], signatureSize: Int = 32, trusted: [String] = []) {
        self.pairs = pairs.map { (SymmetricKey(data: $0.key), $0.salt) }
        self.trusted = Set(trusted)
        self.signatureSize = min(max(signatureSize, Self.signatureSizes.lowerBound), Self.signatureSizes.upperBound)
    }

    package var isSigning: Bool { !pairs.isEmpty }

    /// The signature segment for `signedPart` (everything after the signature, leading "/" included).
    package func signature(for signedPart: String) -> String {
        guard let first = pairs.first else { return Self.unsigned }
        return Base64URL.encode(mac(for: first.salt + Data(signedPart.utf8), using: first.key))
    }

    /// The HMAC truncated to `signatureSize` bytes.
    private func mac(for message: Data, using key: SymmetricKey) -> Data {
        Data(Data(HMAC<SHA256>.authenticationCode(for: message, using: key)).prefix(signatureSize))
    }

    /// Whether `signature` is right for `signedPart` under some pair; each MAC comparison takes constant time.
    /// Without a key only `unsafe` passes (the short grammar's rule). A trusted signature passes for any path.
    package func accepts(_ signature: String, for signedPart: String) -> Bool {
        // A set lookup: a trusted segment is a shared secret of its own, as imgproxy compares it.
        if trusted.contains(signature) { return true }
        guard isSigning else { return signature == Self.unsigned }
        // Only the canonical spelling: base64 ignores the unused low bits of the last digit, so without this
        // check several signatures would be accepted for one path.
        guard let mac = Base64URL.decode(signature[...]), Base64URL.encode(mac) == signature else { return false }
        let message = Data(signedPart.utf8)
        // Every pair is tried, so the time taken does not say which pair (if any) matched.
        var matched = false
        for pair in pairs where Self.equalInConstantTime(mac, self.mac(for: pair.salt + message, using: pair.key)) {
            matched = true
        }
        return matched
    }

    /// Equal bytes, compared without stopping at the first difference (only the lengths, which are public, may
    /// end it early).
    private static func equalInConstantTime(_ left: Data, _ right: Data) -> Bool {
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(left, right) { difference |= a ^ b }
        return difference == 0
    }

    /// Bytes from hex (`--key`, `--salt`); nil when it is not an even number of hex digits.
    package static func bytes(fromHex hex: String) -> Data? {
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
