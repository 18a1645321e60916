/// Whether a response may be kept at all, on disk or in memory (RFC 9111 §3), as OkHttp's CacheStrategy decides
/// for a private cache: not with `Cache-Control: no-store`, and not with `Vary: *`, which no later request can
/// match (§4.1). A shared cache also keeps nothing marked `private` (§5.2.2.7) nor a response that sets a cookie
/// (as nginx's `proxy_cache` does by default: the answer was shaped for one client).
enum Storability {
    /// `headers` are the kept caching headers, names lower-cased; `setsCookie`: the response had `Set-Cookie`.
    static func refusal(_ headers: [String: String], setsCookie: Bool, role: CacheRole) -> Uncacheable? {
        let control = CacheControl(parsing: headers["cache-control"].map { [$0] } ?? [])
        if control.noStore { return .noStore }
        let vary = headers["vary"]?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        if vary.contains("*") { return .varyAny }
        guard case .shared(let ignoringSetCookie) = role else { return nil }
        if control.isPrivate { return .privateResponse }
        if setsCookie && !ignoringSetCookie { return .setsCookie }
        return nil
    }
}

/// Why the origin's answer was not kept (RFC 9111 §3): a server passes it on, so its own clients and the CDNs in
/// front of it do not keep the thumbnail either.
public enum Uncacheable: String, Sendable, Equatable {
    /// `Cache-Control: no-store`: kept nowhere, by no one.
    case noStore = "no-store"
    /// `Vary: *`: no later request can be known to match.
    case varyAny = "vary: *"
    /// `Cache-Control: private` (a shared cache): the answer may be kept by its client only.
    case privateResponse = "private"
    /// `Set-Cookie` (a shared cache): the answer was made for one client.
    case setsCookie = "set-cookie"
}

/// Whose cache the pipeline is (RFC 9111 §1): a private cache serves one user (the CLI, an app), a shared one
/// serves many (`thumbcache serve`) and must not keep what the origin meant for one client.
public enum CacheRole: Sendable, Equatable {
    case privateCache
    /// `ignoringSetCookie`: keep responses that set a cookie anyway (nginx's `proxy_ignore_headers Set-Cookie`),
    /// for origins that set one on every answer; the cookie itself is never stored or passed on.
    case shared(ignoringSetCookie: Bool)

    var isShared: Bool { self != .privateCache }
}
