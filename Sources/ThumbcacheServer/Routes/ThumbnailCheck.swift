import Foundation
import ImageDecode
import Processing
import ThumbcacheKit

/// A thumbnail request that passed the one check both ways of answering use (`ThumbnailChecks.check`): its path
/// parsed in either grammar (`ThumbnailPath`, or imgproxy's `ProcessingPath`), its signature accepted, an
/// `expires` option not passed, its source parsed and allowed to be asked for (`ThumbcacheEndpoints.source`), and
/// the format chosen (the path's, else negotiated from `Accept`).
struct ThumbnailCheck: Sendable {
    let rendition: Rendition
    let source: ImageSource
    /// The format to render (nil: the source's own, as the pipeline decides).
    let format: ImageFormat?
    /// The format came from `Accept`, so the answer varies on it.
    let negotiated: Bool
    /// `Content-Disposition` as the processing options ask for it (`fn`, `att`), built once per format; nil: none
    /// is sent.
    let disposition: PreparedDisposition?
    /// The path's memory-hit heads, kept with the path's check.
    let heads: PreparedHeads
    /// The path as the access log writes it (`AccessLog.loggedPath`).
    let loggedPath: AccessLog.LoggedPath
}

/// The check of a thumbnail request, with what it found for each recent path remembered (only paths that pass: a
/// refused path caches nothing, so junk cannot push hot paths out of the memo): a hot
/// thumbnail's path is parsed, its HMAC computed and its source normalised once, not on every hit (they were a
/// large part of a memory hit's own cost: docs/benchmarks.md, `thumbcache serve`); a request the wire passes on
/// to the router after a miss is not checked again there. Only the `expires` time is looked at on every request.
final class ThumbnailChecks: Sendable {
    private let signer: URLSigner
    private let maxSize: Int
    private let presets: Presets
    private let onlyPresets: Bool
    /// Each remembered path is counted with the most its prepared heads and `Content-Disposition` values can hold:
    /// at most about 40 MiB in all.
    private let known = MemoryCache<String, Checked>(limits: .init(totalCost: 40 << 20, count: 10_000))

    private struct Checked: Sendable {
        let rendition: Rendition
        let source: ImageSource
        /// The path's own format (an extension, `f:`); nil: negotiated per request, when `negotiates`.
        let format: ImageFormat?
        /// `raw` answers the original whatever `Accept` says.
        let negotiates: Bool
        let expires: Int64?
        let disposition: PreparedDisposition?
        let heads = PreparedHeads()
        let loggedPath: AccessLog.LoggedPath
    }

    init(signer: URLSigner, maxSize: Int, presets: Presets = Presets(), onlyPresets: Bool = false) {
        self.signer = signer
        self.maxSize = maxSize
        self.presets = presets
        self.onlyPresets = onlyPresets
    }

    /// `target`: the request target as sent (a query is ignored); `accept`: the `Accept` field.
    func check(target: String, accept: String?, now: Int64 = Int64(time(nil))) throws(ServeError) -> ThumbnailCheck {
        let path = Self.path(ofTarget: target)
        let checked: Checked
        if let remembered = known.value(forKey: path) {
            checked = remembered
        } else {
            checked = try check(path)
            known.set(checked, forKey: path, cost: path.utf8.count * 2 + PreparedHeads.maximumBytes
                      + (checked.disposition == nil ? 0 : PreparedDisposition.maximumBytes))
        }
        // imgproxy: 0 or less never expires.
        if let expires = checked.expires, expires > 0, expires < now { throw ServeError(ProcessingError.expired(at: expires)) }
        return ThumbnailCheck(rendition: checked.rendition, source: checked.source,
                              format: checked.negotiates ? AcceptNegotiation(accept).format : checked.format,
                              negotiated: checked.negotiates,
                              disposition: checked.disposition, heads: checked.heads, loggedPath: checked.loggedPath)
    }

    private func check(_ path: String) throws(ServeError) -> Checked {
        guard path.utf8.first == UInt8(ascii: "/") else { throw .badRequest("the path must start with /") }
        let segments = path.utf8.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            .map { Substring($0) }
        switch PathGrammar(segments: segments) {
        case .shortThumbnail:
            let parsed = try ThumbnailPath(segments: segments, maxSize: maxSize)
            guard signer.accepts(parsed.signature, for: parsed.signedPart) else { throw badSignature }
            // Its size and fit are free, which would reopen the URL space that presets close.
            if onlyPresets { throw ServeError(ProcessingError.onlyPresets(option: "the short grammar /<size>/<fit>")) }
            return Checked(rendition: .thumbnail(size: parsed.size, fit: parsed.fit),
                           source: try ThumbcacheEndpoints.source(parsed.source), format: parsed.format,
                           negotiates: parsed.format == nil, expires: nil,
                           disposition: nil, loggedPath: AccessLog.loggedPath(path))
        case .processing:
            // The signature before anything is parsed, as imgproxy checks it: a request without a valid one learns
            // nothing of the options' grammar. Without a key the segment may hold anything, as in imgproxy.
            let restored = RestoredPath(segments: segments)
            if signer.isSigning {
                // imgproxy signs the restored path; a builder that signed what it sent (`/sig//plain/…`) is as good.
                let sent = "/" + segments.dropFirst().joined(separator: "/")
                guard signer.accepts(restored.signature, for: restored.signedPart)
                        || (sent != restored.signedPart && signer.accepts(restored.signature, for: sent)) else { throw badSignature }
            }
            let parsed: ProcessingPath
            do { parsed = try ProcessingPath(restored: restored, presets: presets, onlyPresets: onlyPresets) } catch {
                throw ServeError(error)
            }
            let options = parsed.options
            let disposition = options.filename != nil || options.returnAttachment
                ? PreparedDisposition(ContentDisposition(filename: options.filename, attachment: options.returnAttachment,
                                                         source: parsed.source))
                : nil
            return Checked(rendition: .processed(CanonicalOptions(options)), source: try ThumbcacheEndpoints.source(parsed.source),
                           format: options.format, negotiates: options.format == nil && !options.raw,
                           expires: options.expires, disposition: disposition,
                           loggedPath: AccessLog.loggedPath(path))
        }
    }

    private var badSignature: ServeError {
        .forbidden("bad_signature", signer.isSigning
            ? "the signature does not match this path and the server's key"
            : "signing is off: the signature segment must be \(URLSigner.unsigned)")
    }

    /// The target's path: everything before a query or a fragment, by bytes (searching Characters was a measurable
    /// part of a hit's cost).
    static func path(ofTarget target: String) -> String {
        guard let end = target.utf8.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else { return target }
        return String(target[..<end])
    }
}
