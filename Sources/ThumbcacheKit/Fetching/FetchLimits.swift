/// How far one download may go: its size, its timeouts, its redirects, and the connections to one origin at once.
/// One value for `PipelineConfiguration.fetchLimits` and `DataCacheConfiguration.fetchLimits`, each with its own
/// defaults; `FetcherFactory` builds the HTTP client from it.
public struct FetchLimits: Sendable, Equatable {
    /// Larger bodies fail (`PipelineError.downloadTooLarge`, `DataCacheError.tooLarge`) as soon as they are known to be.
    public var maxDownloadBytes: Int
    public var connectTimeout: Duration
    public var readTimeout: Duration
    /// Over the whole fetch: every redirect hop and the body.
    public var totalTimeout: Duration
    public var maxRedirects: Int
    /// Connections to one origin at once. A download beyond them waits for one to be free (up to `totalTimeout`),
    /// so a server sizes this to the downloads it admits (`--workers` + `--queue`): slow sources on one origin then
    /// never hold up the others.
    public var maxConnectionsPerHost: Int

    public init(maxDownloadBytes: Int, connectTimeout: Duration = .seconds(10), readTimeout: Duration = .seconds(30),
                totalTimeout: Duration, maxRedirects: Int = 5, maxConnectionsPerHost: Int = 16) {
        (self.maxDownloadBytes, self.connectTimeout, self.readTimeout) = (maxDownloadBytes, connectTimeout, readTimeout)
        (self.totalTimeout, self.maxRedirects, self.maxConnectionsPerHost) = (totalTimeout, maxRedirects, maxConnectionsPerHost)
    }

    /// The one size check of a download or a file: refuses `bytes` over `maxDownloadBytes`.
    func checkSize(_ bytes: Int, url: String) throws(PipelineError) {
        guard bytes <= maxDownloadBytes else { throw .downloadTooLarge(url: url, limit: maxDownloadBytes) }
    }

    /// A thumbnail's original: large images, and a server may wait long for a slow origin.
    public static let originals = FetchLimits(maxDownloadBytes: 50_000_000, totalTimeout: .seconds(300))
    /// A `DataCache`'s bodies, held in memory for `processData`.
    public static let data = FetchLimits(maxDownloadBytes: 10_000_000, totalTimeout: .seconds(60))
}
