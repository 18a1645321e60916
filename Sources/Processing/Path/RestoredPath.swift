/// A processing path as its author wrote it, undoing what proxies, CDNs and browsers do to URLs on the way
/// (imgproxy's `handlers/path.go`, `RedenormalizePath`, whose comments say the same):
/// - `%3A` in the options (`rs%3Afill%3A300%3A200`) is a `:` again; we also take `%3a`, which imgproxy does not,
///   since RFC 3986 makes the case of an escape insignificant;
/// - a plain source whose `scheme://` was merged into `scheme:/` (`plain/http:/host/p.jpg`) gets its `//` back, and
///   `local:/p.jpg` becomes `local:///p.jpg`; the scheme is RFC 3986's letters, so only the URL's start is touched
///   (imgproxy's pattern matches the last `:/` of the source);
/// - empty segments among the options (`/unsafe//plain/…`, or an empty option a builder joined in) are dropped;
///   imgproxy drops only a leading one and fails on the others.
/// A query was already cut by the server. Everything else, a plain source's other escapes included, stays as sent.
public struct RestoredPath: Sendable, Equatable {
    public let signature: String
    /// The segments after the signature, restored.
    public let segments: [String]

    /// `segments`: the whole path split on "/", the signature first.
    public init<Segment: StringProtocol>(segments sent: [Segment]) {
        signature = sent.first.map { String($0) } ?? ""
        var restored: [String] = []
        var inOptions = true
        var plainAt: Int?
        for segment in sent.dropFirst() {
            var part = String(segment)
            if inOptions {
                if part.isEmpty { continue }
                if part.contains("%3") { part = Self.colonsRestored(part) }
                // The source starts at the first segment without a ":" (ProcessingPath's rule).
                if !part.contains(":") {
                    inOptions = false
                    if part == "plain" { plainAt = restored.count }
                }
            }
            restored.append(part)
        }
        // `http:/host/p.jpg` split on "/" is ["http:", "host", "p.jpg"]: the merged "//" is the empty segment
        // missing after the scheme (two for `local:///`).
        if let plainAt, plainAt + 2 < restored.count, Self.isScheme(restored[plainAt + 1]), !restored[plainAt + 2].isEmpty {
            let missing = restored[plainAt + 1] == "local:" ? 2 : 1
            restored.insert(contentsOf: repeatElement("", count: missing), at: plainAt + 2)
        }
        segments = restored
    }

    /// What the signature covers: the restored path after the signature, its leading "/" included (imgproxy signs
    /// the restored path).
    public var signedPart: String { "/" + segments.joined(separator: "/") }

    private static func colonsRestored(_ option: String) -> String {
        option.replacingOccurrences(of: "%3A", with: ":").replacingOccurrences(of: "%3a", with: ":")
    }

    /// `http:`: RFC 3986's scheme (a letter, then letters, digits, "+", "-", ".") and a colon.
    private static func isScheme(_ segment: String) -> Bool {
        guard segment.count > 1, segment.last == ":", let head = segment.first, head.isASCII, head.isLetter else { return false }
        return segment.dropLast().allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
    }
}
