import Crypto
import Foundation

/// The package's one way to hash: SHA-256 from swift-crypto, as lowercase hex. Cache keys (normalised URLs)
/// and strong ETags (thumbnail bytes) both go through it.
package enum SHA256Digest {
    package static func hex(_ text: String) -> String {
        hex(bytes: Array(text.utf8))
    }

    package static func hex<Bytes: DataProtocol>(bytes: Bytes) -> String {
        hex(of: Crypto.SHA256.hash(data: bytes))
    }

    /// The digest of bytes that come a chunk at a time (`feed` hands each to its argument, in order), so a large
    /// original is hashed without being held in memory whole.
    static func hex<Failure: Error>(
        streaming feed: ((UnsafeRawBufferPointer) -> Void) throws(Failure) -> Void
    ) throws(Failure) -> String {
        var hasher = Crypto.SHA256()
        try feed { hasher.update(bufferPointer: $0) }
        return hex(of: hasher.finalize())
    }

    private static func hex(of digest: Crypto.SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in digest {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
