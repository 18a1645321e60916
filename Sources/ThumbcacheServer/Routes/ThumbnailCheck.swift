import ImageDecode
import ThumbcacheKit

/// A thumbnail request that passed the one check both ways of answering use (`ThumbnailChecks.check`): its path
/// parsed (`ThumbnailPath`), its signature accepted, its source parsed and allowed to be asked for
/// (`ThumbcacheEndpoints.source`), and the format chosen (the path's, else negotiated from `Accept`).
struct ThumbnailCheck: Sendable {
    let path: ThumbnailPath
    let source: ImageSource
    /// The format to render (nil: the source's own, as the pipeline decides).
    let format: ImageFormat?
    /// The path's memory-hit heads, kept with the path's check.
    let heads: PreparedHeads
    /// The path as the access log writes it (`AccessLog.loggedPath`).
    let loggedPath: AccessLog.LoggedPath

    /// The format came from `Accept`, so the answer varies on it.
    var negotiated: Bool { path.format == nil }
}

/// The check of a thumbnail request, with what it found for each recent path remembered (only paths that pass: a
/// refused path caches nothing, so junk cannot push hot paths out of the memo): a hot
/// thumbnail's path is parsed, its HMAC computed and its source normalised once, not on every hit (they were a
/// large part of a memory hit's own cost: docs/benchmarks.md, `thumbcache serve`); a request the wire passes on
/// to the router after a miss is not checked again there.
final class ThumbnailChecks: Sendable {
    private let signer: URLSigner
    private let maxSize: Int
    /// Each remembered path is counted with the most its prepared heads can hold: at most about 40 MiB in all.
    private let known = MemoryCache<String, Checked>(limits: .init(totalCost: 40 << 20, count: 10_000))

    private struct Checked: Sendable {
        let path: ThumbnailPath
        let source: ImageSource
        let heads = PreparedHeads()
        let loggedPath: AccessLog.LoggedPath
    }

    init(signer: URLSigner, maxSize: Int) {
        self.signer = signer
        self.maxSize = maxSize
    }

    /// `target`: the request target as sent (a query is ignored); `accept`: the `Accept` field.
    func check(target: String, accept: String?) throws(ServeError) -> ThumbnailCheck {
        let path = Self.path(ofTarget: target)
        let checked: Checked
        if let remembered = known.value(forKey: path) {
            checked = remembered
        } else {
            checked = try check(path)
            known.set(checked, forKey: path, cost: path.utf8.count * 2 + PreparedHeads.maximumBytes)
        }
        return ThumbnailCheck(path: checked.path, source: checked.source,
                              format: checked.path.format ?? AcceptNegotiation(accept).format, heads: checked.heads,
                              loggedPath: checked.loggedPath)
    }

    private func check(_ path: String) throws(ServeError) -> Checked {
        guard path.utf8.first == UInt8(ascii: "/") else { throw .badRequest("the path must start with /") }
        let segments = path.utf8.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            .map { Substring($0) }
        let parsed = try ThumbnailPath(segments: segments, maxSize: maxSize)
        guard signer.accepts(parsed.signature, for: parsed.signedPart) else {
            throw .forbidden("bad_signature", signer.isSigning
                ? "the signature does not match this path and the server's key"
                : "signing is off: the signature segment must be \(URLSigner.unsigned)")
        }
        return Checked(path: parsed, source: try ThumbcacheEndpoints.source(parsed.source), loggedPath: AccessLog.loggedPath(path))
    }

    /// The target's path: everything before a query or a fragment, by bytes (searching Characters was a measurable
    /// part of a hit's cost).
    static func path(ofTarget target: String) -> String {
        guard let end = target.utf8.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else { return target }
        return String(target[..<end])
    }
}
