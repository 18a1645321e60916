/// Whether a response may be kept at all, on disk or in memory (RFC 9111 §3), as OkHttp's CacheStrategy
/// decides: not with `Cache-Control: no-store`, and not with `Vary: *`, which no later request can match (§4.1).
enum Storability {
    /// `headers` are the kept caching headers, names lower-cased.
    static func allows(_ headers: [String: String]) -> Bool {
        if CacheControl(parsing: headers["cache-control"].map { [$0] } ?? []).noStore { return false }
        let vary = headers["vary"]?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        return !vary.contains("*")
    }
}
