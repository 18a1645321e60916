import AsyncHTTPClient
import Foundation
import ImageDecode
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Downloads originals over http(s) with AsyncHTTPClient: connect and read timeouts, at most 5 redirects,
/// the size limit enforced while streaming, the body sniffed from its first bytes and written to a file in
/// `downloads` as it arrives (memory stays flat however large the original).
final class HTTPFetcher: Sendable {
    struct Limits: Sendable {
        var maxBytes: Int
        var connectTimeout: TimeAmount
        var readTimeout: TimeAmount
        var totalTimeout: TimeAmount
        var maxRedirects: Int
    }

    private let client: HTTPClient
    private let limits: Limits
    private let downloads: URL

    /// `trustRoots` are trusted beside the system's certificate authorities.
    init(limits: Limits, downloads: URL, trustRoots: [NIOSSLCertificate] = []) {
        self.limits = limits
        self.downloads = downloads
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: limits.maxRedirects, allowCycles: false),
            timeout: .init(connect: limits.connectTimeout, read: limits.readTimeout))
        configuration.decompression = .disabled
        if !trustRoots.isEmpty {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.certificates(trustRoots)]
            configuration.tlsConfiguration = tls
        }
        // AHC retries a refused connection with backoff until the connect timeout: 10 s of silence before
        // "connection refused". Fail at once instead, with the real reason.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func shutdown() async {
        try? await client.shutdown()
    }

    func fetch(_ url: String, conditional: [(String, String)]) async throws(PipelineError) -> FetchOutcome {
        do {
            return try await perform(url, conditional: conditional)
        } catch let error as PipelineError {
            throw error
        } catch let error as HTTPClientError where error == .redirectLimitReached || error == .redirectCycleDetected {
            throw .tooManyRedirects(url: url, limit: limits.maxRedirects)
        } catch {
            throw .network(url: url, reason: HTTPFetcher.describe(error))
        }
    }

    private func perform(_ url: String, conditional: [(String, String)]) async throws -> FetchOutcome {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: "thumbcache/\(ThumbnailPipeline.version)")
        request.headers.add(name: "Accept", value: "image/jpeg, image/png;q=0.9, */*;q=0.1")
        for (name, value) in conditional { request.headers.add(name: name, value: value) }
        let requestTime = Date()
        let response = try await client.execute(request, timeout: limits.totalTimeout)
        let responseTime = Date()
        let headers = cachingHeaders(response.headers.map { ($0.name, $0.value) })
        if response.status == .notModified, !conditional.isEmpty {
            return .notModified(headers: headers, requestTime: requestTime, responseTime: responseTime)
        }
        guard (200..<300).contains(response.status.code) else {
            throw PipelineError.httpStatus(url: url, status: Int(response.status.code))
        }
        if let declared = response.headers.first(name: "content-length").flatMap(Int.init), declared > limits.maxBytes {
            throw PipelineError.downloadTooLarge(url: url, limit: limits.maxBytes)
        }
        let contentType = response.headers.first(name: "content-type")
        let download = try DownloadFile(in: downloads)
        var sniffed = false
        for try await chunk in response.body {
            guard download.byteCount + chunk.readableBytes <= limits.maxBytes else {
                throw PipelineError.downloadTooLarge(url: url, limit: limits.maxBytes)
            }
            try chunk.withUnsafeReadableBytes { bytes in try download.append(bytes) }
            // Refuse an HTML error page (or anything else) as soon as its first bytes arrive.
            if !sniffed && download.byteCount >= 8 {
                guard ImageFormat.sniff(download.head) != nil else {
                    throw PipelineError.notAnImage(url: url, contentType: contentType)
                }
                sniffed = true
            }
        }
        guard ImageFormat.sniff(download.head) != nil else { throw PipelineError.notAnImage(url: url, contentType: contentType) }
        return .body(try download.finish(), headers: headers, requestTime: requestTime, responseTime: responseTime)
    }

    /// A one-line reason a user can act on, chosen by the error's type (not its text, which NIO may reword).
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .readTimeout: return "read timed out"
            case .connectTimeout: return "connect timed out"
            case .deadlineExceeded: return "request took longer than the overall timeout"
            case .remoteConnectionClosed: return "the connection was closed before the whole body arrived"
            default: return "\(error)"
            }
        case is CancellationError:
            return "cancelled"
        case let error as NIOConnectionError:
            // Happy Eyeballs tried every address of the host; the first failure carries the reason.
            guard let first = error.connectionErrors.first else { return "could not connect to \(error.host):\(error.port)" }
            return describe(first.error)
        case let error as IOError:
            return error.errnoCode == ECONNREFUSED ? "connection refused" : String(cString: strerror(error.errnoCode))
        case NIOSSLError.handshakeFailed(let error):
            let reason = tlsReason(error)
            guard reason == "CERTIFICATE_VERIFY_FAILED" else { return "TLS handshake failed (\(reason))" }
            // An untrusted certificate is the common case; say how to trust a private CA.
            return "TLS: the server's certificate is not trusted (\(reason)); for an origin signed by a private CA, pass --ca-file"
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            return "TLS: the server's certificate is not for this host name"
        case let error as NIOSSLError:
            return "TLS error (\(error))"
        case HTTPParserError.invalidEOFState:
            return "the connection was closed before the whole body arrived"
        case let error as HTTPParserError:
            return "malformed HTTP response (\(error))"
        default:
            return "\(error)"
        }
    }

    /// BoringSSL's reason code, e.g. CERTIFICATE_VERIFY_FAILED, from a message shaped like
    /// `error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at file:line` (it has no API).
    private static func tlsReason(_ error: BoringSSLError) -> String {
        guard case .sslError(let errors) = error, let first = errors.first else { return "\(error)" }
        let message = "\(first)"
        guard let start = message.range(of: "OPENSSL_internal:")?.upperBound else { return message }
        return String(message[start...].prefix { !$0.isWhitespace })
    }
}
