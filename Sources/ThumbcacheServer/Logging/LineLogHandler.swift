import Foundation
import Logging
import ThumbcacheKit

/// Writes each log message as one line on standard error (batched by `LogLineWriter`): as it is for `--log-format json` (the access log's
/// message is the JSON object), with an ISO 8601 time and the level for `text`.
public struct LineLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let json: Bool

    public init(label: String, json: Bool, writer: LogLineWriter = .standardError) {
        self.json = json
        self.writer = writer
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The style is made once, the text once a second (the style has no fractions).
    private static let time = PerSecondText { [style = Date.ISO8601FormatStyle()] in $0.formatted(style) }

    private let writer: LogLineWriter

    public func log(event: LogEvent) {
        let text: String
        if json, event.message.description.hasPrefix("{") {
            text = event.message.description
        } else if json {
            text = ServeError.json(["level": event.level.rawValue, "message": event.message.description])
        } else {
            text = "\(Self.time.text) \(event.level.rawValue) \(event.message)"
        }
        writer.write(text, urgent: event.level >= .warning)
    }
}
