import DiskLru
import ImageDecode
import Processing

/// Why `thumbcache get` (or the pipeline) could not produce a thumbnail. Each case maps to a documented
/// exit code, and each message names the problem and, where there is one, the fix.
public enum PipelineError: Error, Sendable, CustomStringConvertible {
    case invalidSource(String, String)
    /// Connect or read timeout, refused connection, DNS failure, connection cut mid-body.
    case network(url: String, reason: String)
    /// The origin did not answer in time: connect, read or overall timeout (a server's 504, not 502).
    case timeout(url: String, reason: String)
    /// A final status outside 2xx (after redirects).
    case httpStatus(url: String, status: Int)
    case tooManyRedirects(url: String, limit: Int)
    /// A redirect back to a URL already visited: `chain` from the source to the repeated URL.
    case redirectCycle(chain: [String])
    /// A redirect whose `Location` cannot be followed (malformed, port out of range).
    case invalidRedirect(url: String, location: String, reason: String)
    /// The source, or a redirect hop, is refused by the `SourcePolicy` (scheme, prefix or address), or a redirect
    /// leads to a scheme other than http(s). No connection was made to the refused target.
    case sourceRefused(url: String, reason: String)
    /// `206 Partial Content` to a request that asked for no range: a fragment is not the image.
    case partialContent(url: String)
    /// The body is not an image as sent: it is compressed with this `Content-Encoding`, which thumbcache does
    /// not undo (it asks for `identity`).
    case encodedBody(url: String, encoding: String)
    /// The body is in no image format thumbcache knows (checked from its first bytes, whatever Content-Type says).
    case notAnImage(url: String, contentType: String?)
    /// The body is larger than the download limit (checked while streaming).
    case downloadTooLarge(url: String, limit: Int)
    /// The original is within the owner's limits but over one the request set (`max_src_file_size`,
    /// `max_src_resolution`).
    case overRequestLimit(url: String, option: OptionName, limit: String, actual: String)
    case fileNotFound(path: String)
    case fileUnreadable(path: String, reason: String)
    /// Decoding or encoding the image failed (corrupt, unsupported, over the pixel or decode memory budget).
    case image(url: String, ImageDecodeError)
    /// `--offline` and nothing cached for this URL.
    case offlineMiss(url: String)
    /// The cache directory could not be opened, locked or written.
    case cache(DiskLruError)
    /// The cache directory holds files, and nothing proves they are a thumbcache cache (no `CACHEDIR.TAG`
    /// written by thumbcache, and not the layout of a cache made before the tag): it is left untouched.
    case notACacheDirectory(path: String, reason: String)
    case invalidSize(Int)
    /// Processing options that cannot be applied to this source (a result over the size limit, found from its
    /// header before any render).
    case processing(url: String, ProcessingError)
    /// A `trustedCAFiles` entry that is missing or holds no PEM certificate.
    case trustedCAFile(path: String, reason: String)
    /// The render gate refused the work: every worker busy and the queue full, or the server stopping.
    case overloaded(String)
    /// The caller stopped waiting (a server's request deadline, a client that left, an interrupted warm) and no
    /// other caller shared the work, so it was stopped before it finished. Nothing is wrong with the source.
    case cancelled(String)

    public var description: String {
        switch self {
        case .invalidSource(let text, let why): "invalid source \"\(HTTPLocation.redacting(text))\": \(why)"
        case .network(let url, let reason), .timeout(let url, let reason): "network error fetching \(url): \(reason)"
        case .httpStatus(let url, let status): "\(url) answered HTTP \(status); nothing was cached"
        case .tooManyRedirects(let url, let limit): "\(url) redirected more than \(limit) times"
        case .redirectCycle(let chain): "redirect cycle: " + chain.joined(separator: " → ")
        case .invalidRedirect(let url, let location, let reason):
            "\(url) redirected to \"\(HTTPLocation.redacting(location))\", which cannot be followed: \(reason); nothing was cached"
        case .sourceRefused(let url, let reason): "refused source \(url): \(reason)"
        case .partialContent(let url):
            "\(url) answered 206 Partial Content to a request for the whole image; a part is not the image, nothing was cached"
        case .encodedBody(let url, let encoding):
            "\(url) is compressed with Content-Encoding: \(encoding), which thumbcache does not decompress (it asked for identity); nothing was cached"
        case .notAnImage(let url, let type):
            "\(url) is not an image in a format thumbcache knows (it reads \(ImageFormat.names(ImageFormat.decodable)))" + (type.map { " (Content-Type: \($0))" } ?? "") + "; nothing was cached"
        case .downloadTooLarge(let url, let limit):
            "\(url) is larger than the download limit of \(limit) bytes; raise --max-download-size to allow it"
        case .overRequestLimit(let url, let option, let limit, let actual):
            "\(url) is \(actual), over this URL's \(option.spellings[0]) (\(option.shortName)) of \(limit): ask with a larger "
                + "\(option.shortName), or without it (the server's own limit applies either way)"
        case .fileNotFound(let path): "no such file: \(path)"
        case .fileUnreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .image(let url, let error): "\(url): \(error)"
        case .offlineMiss(let url): "\(url) is not in the cache and --offline forbids fetching it"
        case .cache(let error): "cache error: \(error)"
        case .notACacheDirectory(let path, let reason):
            "\(path) is not a thumbcache cache directory (\(reason)); thumbcache only uses a new or empty directory, "
                + "or one it made (marked by its CACHEDIR.TAG), so nothing in it was changed; choose another --cache-dir"
        case .invalidSize(let size): "invalid size \(size): use 1...\(ThumbnailRequest.maxSize)"
        case .processing(let url, let error): "\(url): \(error)"
        case .trustedCAFile(let path, let reason): "cannot trust \(path): \(reason); give a PEM file of CA certificates"
        case .overloaded(let reason): "overloaded: \(reason); try again shortly"
        case .cancelled(let reason): "cancelled before it finished (\(reason)); ask again"
        }
    }

    /// Exit codes, documented in the README.
    public var exitCode: Int32 {
        switch self {
        case .invalidSource, .invalidSize, .trustedCAFile, .processing: 64  // usage (as swift-argument-parser's validation errors)
        case .network, .timeout, .tooManyRedirects, .redirectCycle: 3
        case .httpStatus, .invalidRedirect, .partialContent: 4
        case .notAnImage, .encodedBody, .fileNotFound, .fileUnreadable: 5
        case .image(_, let error):
            switch error {
            case .tooLarge, .animationTooLarge, .overMemoryBudget: 6
            case .cancelled: 75  // a render stopped because nobody waited: as `.cancelled`
            case .libraryUnavailable: 69  // EX_UNAVAILABLE: a library the format needs is not installed
            default: 5
            }
        case .downloadTooLarge, .overRequestLimit: 6
        case .offlineMiss: 7
        case .cache, .notACacheDirectory: 8
        case .sourceRefused: 9
        case .overloaded, .cancelled: 75  // EX_TEMPFAIL: nothing wrong with the source, asking again can work
        }
    }
}

extension PipelineError {
    /// An error thrown inside an untyped DiskLru access (`withAccess`, an editor's writes) as the pipeline's.
    static func stored(_ error: any Error) -> PipelineError {
        switch error {
        case let error as PipelineError: error
        case let error as DiskLruError: .cache(error)
        default: .cache(.invalidArgument("\(error)"))
        }
    }
}
