import Foundation
import Logging

/// Writes each log message as one line on standard error: as it is for `--log-format json` (the access log's
/// message is the JSON object), with an ISO 8601 time and the level for `text`.
public struct LineLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let json: Bool

    public init(label: String, json: Bool) {
        self.json = json
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Made once: building the style per line was a visible part of a memory hit's cost.
    private static let timeStyle = Date.ISO8601FormatStyle()

    public func log(event: LogEvent) {
        let text: String
        if json, event.message.description.hasPrefix("{") {
            text = event.message.description
        } else if json {
            text = ServeError.json(["level": event.level.rawValue, "message": event.message.description])
        } else {
            text = "\(Date().formatted(Self.timeStyle)) \(event.level.rawValue) \(event.message)"
        }
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
