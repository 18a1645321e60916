import AsyncHTTPClient
import Foundation
import ImageDecode
import NIOCore
import NIOHTTP1

/// Downloads originals over http(s) with AsyncHTTPClient: connect and read timeouts, at most 5 redirects,
/// the size limit enforced while streaming, and the body sniffed from its first bytes.
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

    init(limits: Limits) {
        self.limits = limits
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: limits.maxRedirects, allowCycles: false),
            timeout: .init(connect: limits.connectTimeout, read: limits.readTimeout))
        configuration.decompression = .disabled
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
        var body = ByteBuffer()
        var sniffed = false
        for try await var chunk in response.body {
            guard body.readableBytes + chunk.readableBytes <= limits.maxBytes else {
                throw PipelineError.downloadTooLarge(url: url, limit: limits.maxBytes)
            }
            body.writeBuffer(&chunk)
            // Refuse an HTML error page (or anything else) as soon as its first bytes arrive.
            if !sniffed && body.readableBytes >= 8 {
                guard ImageFormat.sniff(Data(body.readableBytesView.prefix(16))) != nil else {
                    throw PipelineError.notAnImage(url: url, contentType: contentType)
                }
                sniffed = true
            }
        }
        let data = Data(body.readableBytesView)
        guard ImageFormat.sniff(data) != nil else { throw PipelineError.notAnImage(url: url, contentType: contentType) }
        return .body(data, headers: headers, requestTime: requestTime, responseTime: responseTime)
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .readTimeout: return "read timed out"
            case .connectTimeout: return "connect timed out"
            case .deadlineExceeded: return "request took longer than the overall timeout"
            case .remoteConnectionClosed: return "the connection was closed before the whole body arrived"
            default: return "\(error)"
            }
        }
        if error is CancellationError { return "cancelled" }
        let text = "\(error)"
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        if text.contains("invalidEOFState") || text.contains("EOF") {
            return "the connection was closed before the whole body arrived"
        }
        return text
    }
}
