import DiskLru

/// Why a `DataCache` call failed (in `DataCacheOutcome.failed`) or a disk tier could not open. Each message names
/// the owner's key and URL, what went wrong and, where there is one, what to change.
public enum DataCacheError: Error, Sendable, CustomStringConvertible {
    /// The owner's URL is not an http(s) URL that can be fetched.
    case invalidURL(key: String, url: String, reason: String)
    /// Refused connection, DNS failure, connection cut mid-body.
    case network(key: String, url: String, reason: String)
    /// Connect, read or overall timeout (`DataCacheConfiguration`'s timeouts).
    case timeout(key: String, url: String, reason: String)
    /// A final status outside 2xx (after redirects).
    case httpStatus(key: String, url: String, status: Int)
    /// The source policy refused the URL or an address it resolves or redirects to; no connection was made.
    case refused(key: String, url: String, reason: String)
    /// The body is larger than `DataCacheConfiguration.fetchLimits.maxDownloadBytes`.
    case tooLarge(key: String, url: String, limit: Int)
    /// An answer that is no usable body: redirect loops or too many redirects, a 206, a content-coded body.
    case badResponse(key: String, url: String, reason: String)
    /// The owner's `processData` threw on the fetched bytes; nothing was cached.
    case processDataFailed(key: String, url: String, error: any Error)
    /// The disk tier's directory could not be opened, locked or written.
    case disk(directory: String, DiskLruError)
    /// The directory given for the disk tier holds something else (a thumbnail cache, other files): left untouched.
    case notADataCacheDirectory(path: String, reason: String)
    /// `close()` was called; make a new `DataCache`.
    case closed
    /// The caller's task was cancelled before the answer came.
    case cancelled(key: String)

    public var description: String {
        switch self {
        case .invalidURL(let key, let url, let reason):
            "\(key): cannot fetch \"\(HTTPLocation.redacting(url))\": \(reason)"
        case .network(let key, let url, let reason): "\(key): network error fetching \(url): \(reason)"
        case .timeout(let key, let url, let reason):
            "\(key): \(url) timed out (\(reason)); raise DataCacheConfiguration's timeouts if the origin is slow"
        case .httpStatus(let key, let url, let status): "\(key): \(url) answered HTTP \(status); nothing was cached"
        case .refused(let key, let url, let reason):
            "\(key): refused source \(url): \(reason); DataCacheConfiguration.sourcePolicy decides which origins may be "
                + "fetched (allowLoopback and allowPrivate for a local or internal origin)"
        case .tooLarge(let key, let url, let limit):
            "\(key): \(url) is larger than \(limit) bytes; raise DataCacheConfiguration.fetchLimits.maxDownloadBytes to allow it"
        case .badResponse(let key, let url, let reason): "\(key): \(url): \(reason)"
        case .processDataFailed(let key, let url, let error):
            "\(key): processData threw on the bytes of \(url) (\(error)); nothing was cached"
        case .disk(let directory, let error): "DataCache disk tier in \(directory): \(error)"
        case .notADataCacheDirectory(let path, let reason):
            "\(path) is not a DataCache directory (\(reason)); a DataCache only uses a new or empty directory, or one "
                + "it made (marked by its CACHEDIR.TAG), so nothing in it was changed; give it a directory of its own"
        case .closed: "the DataCache was closed; make a new one"
        case .cancelled(let key): "\(key): the caller stopped waiting before the answer came; ask again"
        }
    }

    /// The fetcher's error for `key`, in the cache's words (its options, not the CLI's flags).
    init(fetching error: PipelineError, key: String) {
        switch error {
        case .network(let url, let reason): self = .network(key: key, url: url, reason: reason)
        case .timeout(let url, let reason): self = .timeout(key: key, url: url, reason: reason)
        case .httpStatus(let url, let status): self = .httpStatus(key: key, url: url, status: status)
        case .sourceRefused(let url, let reason): self = .refused(key: key, url: url, reason: reason)
        case .downloadTooLarge(let url, let limit): self = .tooLarge(key: key, url: url, limit: limit)
        case .tooManyRedirects(let url, _), .invalidRedirect(let url, _, _), .partialContent(let url),
             .encodedBody(let url, _):
            self = .badResponse(key: key, url: url, reason: error.description)
        case .redirectCycle(let chain): self = .badResponse(key: key, url: chain.first ?? "", reason: error.description)
        case .cancelled: self = .cancelled(key: key)
        default: self = .badResponse(key: key, url: "", reason: error.description)
        }
    }

    /// The HTTP status when the origin answered one outside 2xx.
    public var httpStatus: Int? {
        guard case .httpStatus(_, _, let status) = self else { return nil }
        return status
    }
}
