import Foundation
import Logging
import ThumbcacheKit

/// Writes each log message as one line on standard error (batched by `LogLineWriter`): as it is for `--log-format json` (the access log's
/// message is the JSON object), with an ISO 8601 time and the level for `text`.
package struct LineLogHandler: LogHandler {
    package var logLevel: Logger.Level = .info
    package var metadata: Logger.Metadata = [:]
    private let json: Bool

    package init(label: String, json: Bool, writer: LogLineWriter = .standardError) {
        self.json = json
        self.writer = writer
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The style is made once, the text once a second (the style has no fractions).
    private static let time = PerSecondText { [style = Date.ISO8601FormatStyle()] in $0.formatted(style) }

    private let writer: LogLineWriter

    package func log(event: LogEvent) {
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
