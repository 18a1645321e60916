/// imgproxy's processing URL, parsed: `/<signature>/<option>/…/<base64url source, may be split by "/">[.<ext>]`
/// or `/<signature>/<option>/…/plain/<percent-encoded source>[@<ext>]` (options/parser/url.go and
/// processing_options.go). Dispatch with `PathGrammar` first: the short grammar is not parsed here.
public struct ProcessingPath: Sendable, Equatable {
    public enum SourceEncoding: Sendable, Equatable {
        case base64
        case plain
    }

    public var signature: String
    /// The options with the `default` preset, the URL's options and the extension's format applied.
    public var options: ProcessingOptions
    /// The source URL, decoded.
    public var source: String
    public var sourceEncoding: SourceEncoding
    /// What the signature covers: everything after the signature segment, its leading "/" included.
    public var signedPart: String

    /// `path` is the request's path without the query, percent-encoding untouched (a plain source's
    /// escapes are decoded here, once).
    public init(path: String, presets: Presets = Presets(), onlyPresets: Bool = false) throws(ProcessingError) {
        let trimmed = path.hasPrefix("/") ? path.dropFirst() : Substring(path)
        try self.init(segments: trimmed.split(separator: "/", omittingEmptySubsequences: false),
                      presets: presets, onlyPresets: onlyPresets)
    }

    /// `segments`: the path split on "/", the signature first; restored (`RestoredPath`) before it is read. `base`:
    /// the options before the `default` preset and the URL's (a server's client hints, as imgproxy applies them).
    public init<Segment: StringProtocol>(segments: [Segment], presets: Presets = Presets(),
                                         onlyPresets: Bool = false, base: ProcessingOptions = ProcessingOptions()) throws(ProcessingError) {
        guard segments.count >= 2 else {
            throw .badPath("expected /<signature>/<options>/<source>, got \(segments.count) path segment(s)")
        }
        try self.init(restored: RestoredPath(segments: segments), presets: presets, onlyPresets: onlyPresets, base: base)
    }

    /// `allowedOptions`: the option names (as spelled) a URL may hold, imgproxy's
    /// `IMGPROXY_ALLOWED_PROCESSING_OPTIONS`; nil: any. Presets may use any option, as imgproxy's do.
    /// `base64URLIncludesFilename` (imgproxy's `IMGPROXY_BASE64_URL_INCLUDES_FILENAME`): a base64 source's last
    /// piece, when it has several, is a filename for the client (SEO) and is dropped.
    public init(restored: RestoredPath, presets: Presets = Presets(), onlyPresets: Bool = false,
                base: ProcessingOptions = ProcessingOptions(), allowedOptions: Set<String>? = nil,
                base64URLIncludesFilename: Bool = false) throws(ProcessingError) {
        signature = restored.signature
        let rest = restored.segments
        guard !rest.isEmpty else { throw .badPath("the source URL is missing after the signature") }
        signedPart = restored.signedPart

        options = base
        try options.applyDefaultPreset(presets)
        var sourceStart = rest.startIndex
        if onlyPresets {
            sourceStart = try options.applyOnlyPresets(rest, presets: presets)
        } else {
            if ResizingType(rawValue: rest[0]) != nil {
                throw .badPath("imgproxy's old basic URL format (/<signature>/<type>/<width>/…) is not supported; use rs:\(rest[0]):<width>:<height>")
            }
            // Options run up to the first segment without a ":", where the source starts.
            while sourceStart < rest.endIndex, rest[sourceStart].contains(":") {
                if let allowedOptions {
                    let name = String(rest[sourceStart].prefix { $0 != ":" })
                    guard allowedOptions.contains(name) else { throw .forbiddenOption(name) }
                }
                try options.apply(segment: rest[sourceStart], presets: presets)
                sourceStart += 1
            }
        }
        let source = try Self.source(Array(rest[sourceStart...]), includesFilename: base64URLIncludesFilename)
        (self.source, sourceEncoding) = (source.url, source.encoding)
        // The extension sets the format like f:, after every option; raw ignores it.
        if let name = source.extension, !options.raw {
            options.format = try OptionArguments(option: "extension", values: [name]).format(0)
        }
    }

    /// url.go DecodeURL: `plain/…[@ext]`, else base64url pieces joined `[.ext]`.
    private static func source(_ parts: [String], includesFilename: Bool) throws(ProcessingError)
        -> (url: String, encoding: SourceEncoding, extension: String?) {
        guard let first = parts.first else { throw .badPath("the source URL is missing after the options") }
        if first == "enc" && parts.count > 1 {
            throw .notSupported(option: "enc (encrypted source URLs)")
        }
        let plain = first == "plain" && parts.count > 1
        let kept = !plain && includesFilename && parts.count > 1 ? parts.dropLast() : parts[...]
        let joined = plain ? parts.dropFirst().joined(separator: "/") : kept.joined()
        let pieces = joined.split(separator: plain ? "@" : ".", omittingEmptySubsequences: false)
        guard !pieces[0].isEmpty else { throw .badPath("the source URL is empty") }
        guard pieces.count <= 2 else {
            throw .badPath("the source has more than one \(plain ? "@" : ".")extension: \(joined.prefix(80))")
        }
        let ext = pieces.count == 2 && !pieces[1].isEmpty ? String(pieces[1]) : nil
        if plain {
            guard let url = SourceCoding.percentDecoded(String(pieces[0])) else {
                throw .badPath("the plain source has a broken %-escape: \(pieces[0].prefix(80))")
            }
            return (url, .plain, ext)
        }
        guard let url = SourceCoding.base64URLText(pieces[0]) else {
            throw .badPath("the source must be base64url (or plain/<percent-encoded URL>): \(pieces[0].prefix(80))")
        }
        return (url, .base64, ext)
    }
}
