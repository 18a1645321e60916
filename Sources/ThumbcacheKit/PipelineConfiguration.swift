import Foundation

/// Everything `ThumbnailPipeline` can be tuned by. The defaults need no set-up.
public struct PipelineConfiguration: Sendable {
    /// Holds `entries/` (the DiskLru directory) and `stats.json`.
    public var cacheDirectory: URL
    public var maxDiskSize: Int64 = 512 << 20
    public var maxDownloadSize = 50_000_000
    public var connectTimeout: Duration = .seconds(10)
    public var readTimeout: Duration = .seconds(30)
    public var totalTimeout: Duration = .seconds(300)
    public var maxRedirects = 5
    public var ladder = SizeLadder.standard
    public var memoryLimits = MemoryCache<String, MemoryEntry>.Limits(totalCost: 64 << 20, count: 2000)
    public var jpegQuality = 80
    public var maxPixels = 50_000_000
    /// When revalidating a stale entry fails with a network error or a 500, 502, 503 or 504, serve the stale
    /// thumbnail anyway if it is at most this much past its freshness (RFC 5861's stale-if-error, asked for by
    /// the client). nil: such a failure is an error, as in OkHttp, unless the response itself carried
    /// `stale-if-error`. Never overrides the origin's `must-revalidate` or `no-cache`.
    public var staleIfError: Duration?
    /// PEM files of certificate authorities to trust for https origins, beside the system's (an internal
    /// origin signed by a private CA). Read when the pipeline opens, so a bad file fails at once.
    public var trustedCAFiles: [String] = []
    /// Which sources may be fetched, checked on every redirect hop and on the address connected to (see
    /// `SourcePolicy`). Default: any, as the CLI; a server fetching URLs its clients name restricts it.
    public var sourcePolicy = SourcePolicy.unrestricted
    /// Resolves host names for the address check in place of the system's resolver (tests).
    var hostResolver: (any HostResolver)?
    /// Bounds concurrent renders (a server's `--workers` and `--queue`); default: no bound, as the CLI.
    public var renderGate: any RenderGate = UnboundedRenderGate()
    /// How long to wait for another process holding the cache directory.
    public var lockTimeout: Duration = .seconds(300)

    public init(cacheDirectory: URL) {
        self.cacheDirectory = cacheDirectory
    }

    /// `$XDG_CACHE_HOME/thumbcache`, else `~/.cache/thumbcache`.
    public static var defaultCacheDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("thumbcache")
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/thumbcache")
    }
}

/// An encoded thumbnail held in memory, with the time its source stops being fresh.
public struct MemoryEntry: Sendable {
    public let thumbnail: ThumbnailResult
    public let freshUntil: Date
}
