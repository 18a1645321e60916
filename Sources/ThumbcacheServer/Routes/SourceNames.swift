import Foundation
import ThumbcacheKit

/// How a URL's source becomes what the pipeline fetches, one rule for both grammars and purge: the base URL
/// prepended (imgproxy's `IMGPROXY_BASE_URL`, `serve --source-base-url`), then `local://` read under the local
/// root (`IMGPROXY_LOCAL_FILESYSTEM_ROOT`, `serve --local-root`), anything else checked as an http(s) source
/// (`ThumbcacheEndpoints.source`). The source policy's checks (prefixes, addresses) are made on the joined URL.
package struct SourceNames: Sendable {
    /// Prepended to every source that does not already start with it.
    var baseURL: String?
    /// Absolute, symbolic links resolved (as `SourcePolicy.localRoot`); nil: `local://` is refused.
    var localRoot: String?

    /// The base URL's normalised form (http and https bases): a joined source must still start with it.
    private let baseNormalized: String?

    package init(baseURL: String? = nil, localRoot: String? = nil) {
        (self.baseURL, self.localRoot) = (baseURL, localRoot)
        baseNormalized = baseURL.flatMap { base in
            let lower = base.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return nil }
            return try? ImageSource(base).normalized
        }
    }

    package static let localScheme = "local://"

    package func source(_ text: String) throws(ServeError) -> ImageSource {
        let joined = baseURL.map { text.hasPrefix($0) ? text : $0 + text } ?? text
        if joined.lowercased().hasPrefix(Self.localScheme) { return try local(String(joined.dropFirst(Self.localScheme.count))) }
        let source = try ThumbcacheEndpoints.source(joined)
        // imgproxy joins by concatenation, so a source could move the join to another port (`:8080/x`), host
        // (`.evil.com/x`) or, once dot segments are resolved, out of the base's path (`%2e%2e/x`): the normalised
        // result must still start with the normalised base.
        if let baseNormalized, !source.normalized.hasPrefix(baseNormalized) {
            throw .forbidden("source_refused", "the source leaves --source-base-url once joined to it: name a path under \(baseURL ?? "")")
        }
        return source
    }

    /// `local:///a/b.jpg` is `<root>/a/b.jpg`. The path is taken as written (a processing URL's plain source was
    /// decoded once already; nothing is decoded twice), and whatever could leave the root or be read two ways is
    /// refused before anything is opened: `.` and `..` segments, a backslash, a NUL. Symbolic links are refused
    /// where the file is opened (`SourcePolicy.localRoot`).
    func local(_ path: String) throws(ServeError) -> ImageSource {
        guard let localRoot else {
            throw .forbidden("source_refused", "local:// sources are off: start serve with --local-root DIR to serve the files under DIR")
        }
        guard path.hasPrefix("/") else {
            throw .badRequest("a local source is local:///<path under the local root>, with three slashes")
        }
        if path.contains("\0") { throw .badRequest("a local source's path must not hold a NUL") }
        if path.contains("\\") { throw .badRequest("a local source's path must not hold a backslash (some systems read it as /)") }
        let segments = path.split(separator: "/")
        if let dot = segments.first(where: { $0 == "." || $0 == ".." }) {
            throw .badRequest("a local source's path must not hold a \"\(dot)\" segment: name the file from the local root down")
        }
        guard !segments.isEmpty else { throw .badRequest("a local source must name a file under the local root") }
        let source: ImageSource
        do { source = try ImageSource(localRoot + "/" + segments.joined(separator: "/")) } catch { throw ServeError(error) }
        guard source.kind == .file else { throw .badRequest("a local source must name a file under the local root") }
        return source
    }
}
