import Foundation
import HTTPTypes
import ImageDecode
import Processing
import ThumbcacheKit

/// A thumbnail request that passed the one check both ways of answering use (`ThumbnailChecks.check`): its path
/// parsed in either grammar (`ThumbnailPath`, or imgproxy's `ProcessingPath`), its signature accepted, an
/// `expires` option not passed, its source parsed and allowed to be asked for (`SourceNames`), and what it says of
/// the format (the path's, and the formats the server takes from `Accept`; the pipeline decides from the source).
struct ThumbnailCheck: Sendable {
    let rendition: Rendition
    let source: ImageSource
    /// The format the path names (nil: none, as the pipeline decides).
    let format: ImageFormat?
    /// The formats `Accept` names that the server takes from it (`FormatRequest.accepted`): enforced over `format`,
    /// else preferred (the pipeline may then answer the default format when smaller).
    let accepted: [ImageFormat]
    /// The request fields the answer depends on (`Vary`).
    let variation: AnswerVariation
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
    private let rules: Rules
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
        /// A named format that `--enforce-webp`/`--enforce-avif`/`--enforce-jxl` may replace (not `raw`'s).
        let enforceable: Bool
        /// The client hints shaped the options (a processing URL, with hints enabled).
        let hinted: Bool
        let expires: Int64?
        let disposition: PreparedDisposition?
        let heads = PreparedHeads()
        let loggedPath: AccessLog.LoggedPath
    }

    /// The server's request-level settings (`ServeConfiguration`), all off by default.
    struct Rules: Sendable {
        /// imgproxy's `IMGPROXY_MAX_RESULT_DIMENSION`: a processing URL's `max_result_dimension` when it names none.
        var maxResultDimension = 0
        /// imgproxy's `IMGPROXY_ALLOW_SECURITY_OPTIONS`: URLs may name `mrd`, `msr`, `msfs`, `maf` and `mafr`.
        var allowSecurityOptions = false
        /// Read `Sec-CH-DPR`, `DPR`, `Sec-CH-Width` and `Width` for processing URLs (`ClientHints`).
        var clientHints = false
        /// Formats that replace a named one when `Accept` names them, in imgproxy's order (JPEG XL, AVIF, WebP);
        /// `FormatRequest.accepted`.
        var enforced: [ImageFormat] = []
        /// Formats preferred for a path naming none when `Accept` names them, in imgproxy's order: AVIF and WebP
        /// always, JPEG XL with `--auto-jxl` or `--enforce-jxl` (imgproxy's `IMGPROXY_AUTO_*`, which enforcing
        /// implies).
        var preferred: [ImageFormat] = [.avif, .webp]
        /// imgproxy's `IMGPROXY_ALLOWED_PROCESSING_OPTIONS`: the option names a processing URL may hold; nil: any.
        var allowedOptions: Set<String>?
        /// imgproxy's `IMGPROXY_BASE64_URL_INCLUDES_FILENAME`: a split base64 source's last piece is a filename.
        var base64URLIncludesFilename = false
        /// imgproxy's `IMGPROXY_SKIP_PROCESSING_FORMATS`: every processing URL's `skip_processing` includes these.
        var skipProcessingFormats: Set<ImageFormat> = []
        var sources = SourceNames()
        /// imgproxy's `IMGPROXY_PATH_PREFIX`: thumbnail paths start with it (`/imgproxy`, no trailing "/"); nil: none.
        var pathPrefix: String?
    }

    init(signer: URLSigner, maxSize: Int, presets: Presets = Presets(), onlyPresets: Bool = false, rules: Rules = Rules()) {
        self.signer = signer
        self.maxSize = maxSize
        self.presets = presets
        self.onlyPresets = onlyPresets
        self.rules = rules
    }

    /// `target`: the request target as sent (a query is ignored); `accept`: the `Accept` field.
    func check(target: String, accept: String?, now: Int64 = Int64(time(nil))) throws(ServeError) -> ThumbnailCheck {
        var headers = HTTPFields()
        if let accept { headers[.accept] = accept }
        return try check(target: target, headers: headers, now: now)
    }

    /// The check of one request: its target and the fields it reads (`Accept`, the client hints when enabled).
    func check(target: String, headers: HTTPFields, now: Int64 = Int64(time(nil))) throws(ServeError) -> ThumbnailCheck {
        let path = try unprefixed(Self.path(ofTarget: target))
        let hints = rules.clientHints ? ClientHints(headers) : ClientHints()
        // Hints change a processing URL's options, so each value of them is a check of its own.
        let memoKey = hints.isEmpty ? path : path + hints.memoSuffix
        let checked: Checked
        if let remembered = known.value(forKey: memoKey) {
            checked = remembered
        } else {
            checked = try check(path, hints: hints)
            known.set(checked, forKey: memoKey, cost: memoKey.utf8.count * 2 + PreparedHeads.maximumBytes
                      + (checked.disposition == nil ? 0 : PreparedDisposition.maximumBytes))
        }
        // imgproxy: 0 or less never expires.
        if let expires = checked.expires, expires > 0, expires < now { throw ServeError(ProcessingError.expired(at: expires)) }
        var variation: AnswerVariation = checked.hinted ? .clientHints : []
        // Which of them answers is the pipeline's to decide, from the source (an animation passes AVIF and JPEG
        // XL over); the answer varies on `Accept` whenever one might.
        let offered = checked.negotiates ? rules.preferred : checked.enforceable ? rules.enforced : []
        var accepted: [ImageFormat] = []
        if !offered.isEmpty {
            accepted = AcceptNegotiation(headers[.accept]).accepted(offered)
            variation.insert(.accept)
        }
        return ThumbnailCheck(rendition: checked.rendition, source: checked.source, format: checked.format,
                              accepted: accepted, variation: variation,
                              disposition: checked.disposition, heads: checked.heads, loggedPath: checked.loggedPath)
    }

    /// The source of a purge request: the same rule as a thumbnail's.
    func source(_ text: String) throws(ServeError) -> ImageSource { try rules.sources.source(text) }

    private func check(_ path: String, hints: ClientHints) throws(ServeError) -> Checked {
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
                           source: try rules.sources.source(parsed.source), format: parsed.format,
                           negotiates: parsed.format == nil, enforceable: parsed.format != nil, hinted: false, expires: nil,
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
            do {
                parsed = try ProcessingPath(restored: restored, presets: presets, onlyPresets: onlyPresets, base: hints.baseOptions,
                                        allowedOptions: rules.allowedOptions,
                                        base64URLIncludesFilename: rules.base64URLIncludesFilename)
            } catch {
                throw ServeError(error)
            }
            var options = parsed.options
            try applySecurityRules(to: &options)
            let disposition = options.filename != nil || options.returnAttachment
                ? PreparedDisposition(ContentDisposition(filename: options.filename, attachment: options.returnAttachment,
                                                         source: parsed.source))
                : nil
            return Checked(rendition: .processed(CanonicalOptions(options)), source: try rules.sources.source(parsed.source),
                           format: options.format, negotiates: options.format == nil && !options.raw,
                           enforceable: options.format != nil && !options.raw, hinted: rules.clientHints,
                           expires: options.expires, disposition: disposition,
                           loggedPath: AccessLog.loggedPath(path))
        }
    }

    /// imgproxy's security options: refused (403) unless the server allows them; the server's skip-processing
    /// formats; then the server's default `max_result_dimension` where the URL names none, so the canonical form, and the key, hold the limit applied.
    private func applySecurityRules(to options: inout ProcessingOptions) throws(ServeError) {
        if !rules.allowSecurityOptions {
            if let first = options.securityOptionsGiven.first {
                throw .forbidden("security_option", "option \(first.spellings[0]) (\(first.shortName)) is a security option, which this "
                                 + "server does not take from URLs: remove it, or start serve with --allow-security-options")
            }
        }
        // The server's skp joins the URL's, so the canonical form (and the cache key) says what is done.
        options.skipProcessing.formUnion(rules.skipProcessingFormats)
        if options.geometry.maxResultDimension == nil, rules.maxResultDimension > 0 {
            options.geometry.maxResultDimension = rules.maxResultDimension
        }
    }

    /// The path without the server's prefix (everything after it is what is parsed and signed, as in imgproxy);
    /// a path outside the prefix names nothing here: 404.
    private func unprefixed(_ path: String) throws(ServeError) -> String {
        guard let prefix = rules.pathPrefix else { return path }
        guard path.hasPrefix(prefix), path.utf8.dropFirst(prefix.utf8.count).first == UInt8(ascii: "/") else {
            throw ServeError(status: .notFound, code: "not_found", message: "thumbnail paths start with \(prefix)/ on this server (--path-prefix)")
        }
        return String(path.dropFirst(prefix.count))
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
