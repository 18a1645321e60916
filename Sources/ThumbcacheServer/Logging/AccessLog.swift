import Foundation
import Logging

/// One access-log line per request (swift-log, text or JSON): method, path without the signature, status,
/// bytes, how a thumbnail was served, duration; and the request's count and latency in the metrics. Written
/// by `AccessLogMiddleware` for requests Hummingbird routes and by `ThumbcacheEndpoints.answeredFromBytes` for the
/// memory hits `WireHitHandler` answers.
struct AccessLog: Sendable {
    let format: ServeConfiguration.LogFormat
    let metrics: ServerMetrics
    let logger = Logger(label: "thumbcache.access")

    func record(method: String, path rawPath: String, status: Int, bytes: String, served: String?, duration: Duration) {
        record(method: method, loggedPath: Self.loggedPath(rawPath), status: status, bytes: bytes, served: served, duration: duration)
    }

    /// `record` of a path whose logged form is known (`loggedPath`, remembered with a thumbnail's check).
    func record(method: String, loggedPath path: LoggedPath, status: Int, bytes: String, served: String?, duration: Duration) {
        metrics.request(status: status, served: served, duration: duration, isThumbnail: path.isThumbnail)
        let milliseconds = duration.millisecondsText
        switch format {
        case .text:
            logger.info("\(method) \(path.text) \(status) \(bytes) \(served ?? "-") \(milliseconds)ms")
        case .json:
            logger.info("\(ServeError.json(["method": method, "path": path.text, "status": String(status), "bytes": bytes, "served": served ?? "-", "ms": milliseconds]))")
        }
    }

    /// A thumbnail path with its signature replaced by `-` (a signature in a log is a URL anyone can replay).
    typealias LoggedPath = (text: String, isThumbnail: Bool)

    static func loggedPath(_ path: String) -> LoggedPath {
        let bytes = path.utf8
        guard bytes.first == UInt8(ascii: "/"), bytes.lazy.filter({ $0 == UInt8(ascii: "/") }).count >= 3,
              let second = bytes.dropFirst().firstIndex(of: UInt8(ascii: "/")) else { return (path, false) }
        let first = path[path.index(after: path.startIndex)..<second]
        guard first != "admin", first != "demo" else { return (path, false) }
        return ("/-" + path[second...], true)
    }
}
