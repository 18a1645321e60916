import Foundation
import Hummingbird
import Logging

/// One access-log line per request (swift-log, text or JSON): method, path without the signature, status,
/// bytes, how a thumbnail was served, duration; and the request's count and latency in the metrics.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let format: ServeConfiguration.LogFormat
    let metrics: ServerMetrics
    let logger = Logger(label: "thumbcache.access")

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, status: response.status.code, bytes: response.headers[.contentLength] ?? "0",
                   served: response.headers[ThumbnailResponder.xThumbcache], started: started)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            record(request, status: status, bytes: "0", served: nil, started: started)
            throw error
        }
    }

    private func record(_ request: Request, status: Int, bytes: String, served: String?, started: ContinuousClock.Instant) {
        let duration = started.duration(to: .now)
        let path = Self.loggedPath(request.uri.path)
        metrics.request(status: status, served: served, duration: duration, isThumbnail: path.isThumbnail)
        let milliseconds = duration.millisecondsText
        switch format {
        case .text:
            logger.info("\(request.method.rawValue) \(path.text) \(status) \(bytes) \(served ?? "-") \(milliseconds)ms")
        case .json:
            logger.info("\(ServeError.json(["method": request.method.rawValue, "path": path.text, "status": String(status), "bytes": bytes, "served": served ?? "-", "ms": milliseconds]))")
        }
    }

    /// A thumbnail path with its signature replaced by `-` (a signature in a log is a URL anyone can replay).
    static func loggedPath(_ path: String) -> (text: String, isThumbnail: Bool) {
        let bytes = path.utf8
        guard bytes.first == UInt8(ascii: "/"), bytes.lazy.filter({ $0 == UInt8(ascii: "/") }).count == 4,
              let second = bytes.dropFirst().firstIndex(of: UInt8(ascii: "/")) else { return (path, false) }
        let first = path[path.index(after: path.startIndex)..<second]
        guard first != "admin", first != "demo" else { return (path, false) }
        return ("/-" + path[second...], true)
    }
}
