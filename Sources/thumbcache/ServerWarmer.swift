import AsyncHTTPClient
import Foundation
import NIOCore
import ThumbcacheKit
import ThumbcacheServer

/// Warms a running `thumbcache serve` (or a balancer in front of several) instead of a local cache: for every
/// URL and size it requests `BASE/<signature>/<size>/contain/<source>`, signed as the server checks it, so that
/// each source lands on the node that owns it. Same window, progress and report as `CacheWarmer`; the
/// server's `X-Thumbcache` header says what each request did there.
struct ServerWarmer: Sendable {
    let baseURL: String
    let signer: URLSigner
    let sizes: [Int]
    let concurrency: Int
    let timeout: Duration

    init(baseURL: String, signer: URLSigner, sizes: [Int], concurrency: Int, timeout: Duration = .seconds(60)) {
        // A trailing slash would make `//` before the signature, which a balancer may merge or not.
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.signer = signer
        self.sizes = Array(Set(sizes)).sorted(by: >)
        self.concurrency = max(1, concurrency)
        self.timeout = timeout
    }

    /// The URL that warms `source` at `size`.
    func requestURL(source: String, size: Int) -> String {
        var path = ThumbnailPath(signature: "", size: size, fit: .contain, source: source, format: nil)
        path.signature = signer.signature(for: path.signedPart)
        return baseURL + path.path
    }

    /// Warms every URL through the server; see `CacheWarmer.run` for the callbacks and cancellation.
    func run(_ urls: [String], onProgress: (WarmReport) -> Void = { _ in },
                    onFailure: (WarmReport.Failure) -> Void = { _ in }) async -> WarmReport {
        await CacheWarmer.run(urls, concurrency: concurrency, warm: { await self.warm($0) },
                              onProgress: onProgress, onFailure: onFailure)
    }

    /// One URL, every size, largest first. "downloaded" counts the thumbnail bytes the server sent; what the
    /// node stored is not visible from here, so "stored" stays 0.
    private func warm(_ source: String) async -> WarmReport.Outcome {
        var served: [ServedFrom] = []
        var received = 0
        for size in sizes {
            do {
                let (response, body) = try await fetch(requestURL(source: source, size: size))
                guard response.status.code == 200 else {
                    return .failed("HTTP \(response.status.code)" + Self.errorDetail(body))
                }
                let header = response.headers.first(name: "X-Thumbcache") ?? ""
                guard let from = ServedFrom(rawValue: header) else {
                    return .failed("HTTP 200 without a valid X-Thumbcache header (\"\(header.prefix(20))\"): not a thumbcache server?")
                }
                // As in a local warm: a stale copy means the origin could not be reached, so warming did not work.
                if from == .stale { return .failed("stale copy served: the origin did not answer") }
                served.append(from)
                received += body.readableBytes
            } catch {
                if Task.isCancelled { return .cancelled }
                return .failed("request failed: \(error)")
            }
        }
        if served.contains(.network) { return .fetched(downloaded: received, stored: 0) }
        if served.contains(.revalidated) { return .revalidated(stored: 0) }
        return .fresh(stored: 0)
    }

    /// One GET, asked again once when the connection drops before an answer: a pooled keep-alive connection
    /// that the server closes (its idle timeout) just as it is reused is reset, which says nothing about the
    /// server or the source, and a GET may be repeated.
    private func fetch(_ url: String) async throws -> (HTTPClientResponse, ByteBuffer) {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        for attempt in 1...2 {
            do {
                let response = try await HTTPClient.shared.execute(request, timeout: .init(timeout))
                return (response, try await response.body.collect(upTo: 256 << 20))
            } catch where attempt == 1 && Self.isDroppedConnection(error) && !Task.isCancelled {
                continue
            }
        }
        preconditionFailure("the second attempt returns or throws")
    }

    static func isDroppedConnection(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError, error == .remoteConnectionClosed { return true }
        if let error = error as? IOError, [ECONNRESET, EPIPE].contains(error.errnoCode) { return true }
        return false
    }

    /// The server's JSON error code (`{"error": "bad_signature", …}`), when there is one.
    private static func errorDetail(_ body: ByteBuffer) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
              let code = object["error"] as? String else { return "" }
        return " (\(code))"
    }
}
