import Crypto
import Foundation

/// The package's one way to hash: SHA-256 from swift-crypto, as lowercase hex. Cache keys (normalised URLs)
/// and strong ETags (thumbnail bytes) both go through it.
public enum SHA256Digest {
    public static func hex(_ text: String) -> String {
        hex(bytes: Array(text.utf8))
    }

    public static func hex<Bytes: DataProtocol>(bytes: Bytes) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in Crypto.SHA256.hash(data: bytes) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
