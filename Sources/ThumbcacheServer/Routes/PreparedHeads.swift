import Foundation
import HTTPTypes
import ImageDecode
import NIOCore
import ThumbcacheKit

/// The heads of one checked path's memory-hit answers, serialised once a second instead of on every hit: the
/// fields of such an answer change only with the second (`Date`, `max-age`) but for `Server-Timing`, so the head
/// is kept as the bytes before and after that field, made by `AnswerHead` from the responder's answer (the
/// router's answer to the same request is the same bytes but for the per-answer values). Building the fields and
/// writing them was a fifth of a memory hit's own work (docs/benchmarks.md, `thumbcache serve`).
/// Only unconditional requests use it; a 304 is made afresh. Held by the path's entry in `ThumbnailChecks`,
/// so it goes when that does.
final class PreparedHeads: Sendable {
    /// What a head depends on besides the second: the thumbnail's answer-making facts and the negotiation.
    struct Facts: Equatable, Sendable {
        let digest: String
        let format: ImageFormat
        let byteCount: Int
        let freshUntil: Date?
        let lastModified: Date?
        let uncacheable: Uncacheable?
        let revalidatesEveryUse: Bool
        let servedFrom: ServedFrom
        let variation: AnswerVariation
        let serverName: String?

        /// Nil for a thumbnail without its digest (the responder hashes those per answer).
        init?(_ result: ThumbnailResult, variation: AnswerVariation, serverName: String?) {
            guard let digest = result.contentDigest else { return nil }
            (self.digest, format, byteCount, freshUntil) = (digest, result.format, result.data.count, result.freshUntil)
            (lastModified, uncacheable, revalidatesEveryUse) = (result.lastModified, result.uncacheable, result.revalidatesEveryUse)
            (servedFrom, self.variation, self.serverName) = (result.servedFrom, variation, serverName)
        }
    }

    /// A head cut around its `Server-Timing` field.
    struct Head: Sendable {
        let facts: Facts
        let second: Int
        let beforeTiming: ByteBuffer
        let afterTiming: ByteBuffer
        /// Its `Content-Length`, for the access log.
        let contentLength: String
    }

    /// Heads of the ways this path was last answered: negotiation can give one path several formats, and a
    /// thumbnail that goes in and out of the memory cache is answered from memory and from disk in turn.
    private let heads = Locked<[Head]>([])  // not `Mutex`: ThreadSanitizer cannot see it on Linux (`Locked`)
    static let kept = 4
    /// Roughly what the kept heads hold at most: a head's halves are allocated at 384 and 128 bytes, and a
    /// thumbnail answer's fields (about 300 bytes, all of bounded length) grow the second to 256 at most; a
    /// `Content-Disposition` is counted with the path's `PreparedDisposition`.
    static let maximumBytes = kept * 640

    /// This second's head for `facts`, made with `make` when there is none yet.
    func head(for facts: Facts, second: Int, make: () -> Head?) -> Head? {
        if let head = heads.withLock({ heads in heads.first { $0.second == second && $0.facts == facts } }) { return head }
        guard let head = make() else { return nil }
        heads.withLock { heads in
            heads.removeAll { $0.facts.format == facts.format && $0.facts.variation == facts.variation
                && $0.facts.servedFrom == facts.servedFrom }
            if heads.count >= Self.kept { heads.removeFirst() }
            heads.append(head)
        }
        return head
    }
}
