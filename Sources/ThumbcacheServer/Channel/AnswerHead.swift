import HTTPTypes
import NIOCore
import ThumbcacheKit

/// The head of every answer the server sends, in one place for both ways a request is answered: `RouterTraffic`
/// stamps the router's answers with `stamp` before NIO's encoder writes them, and `WireHitHandler` writes its own
/// with `write`, which stamps the same way and lays the head out as NIO's `HTTPResponseEncoder` does. So an answer
/// from the bytes and the router's answer to the same request are the same bytes but for the per-answer fields
/// (the parity test checks it).
enum AnswerHead {
    /// The `Date` field's text, made once a second.
    static let date = PerSecondText(HTTPDate.format)

    /// Sets `Date` (`date`: this second's, by default), and `Server` when the server has a name.
    static func stamp(_ fields: inout HTTPFields, serverName: String?, date: String = Self.date.text) {
        fields[.date] = date
        if let serverName { fields[.server] = serverName }
    }

    /// `HTTP/1.1 <code> <reason>`, the fields stamped, and the blank line.
    static func write(status: HTTPResponse.Status, fields: HTTPFields, serverName: String?, date: String = Self.date.text,
                      into buffer: inout ByteBuffer) {
        var fields = fields
        stamp(&fields, serverName: serverName, date: date)
        writeStatusLine(status, into: &buffer)
        for field in fields { write(field, into: &buffer) }
        buffer.writeStaticString("\r\n")
    }

    /// The head `write` makes, cut around the field `name`, which is left out: the bytes before it go to `before`,
    /// those after it (the blank line at least) to `after`. `PreparedHeads` keeps the two and writes a per-answer
    /// value between them. False when there is no such field (then `after` holds only the blank line).
    static func write(status: HTTPResponse.Status, fields: HTTPFields, serverName: String?, date: String,
                      splitAt name: HTTPField.Name, before: inout ByteBuffer, after: inout ByteBuffer) -> Bool {
        var fields = fields
        stamp(&fields, serverName: serverName, date: date)
        writeStatusLine(status, into: &before)
        var split = false
        for field in fields {
            if field.name == name { split = true } else if split { write(field, into: &after) } else { write(field, into: &before) }
        }
        after.writeStaticString("\r\n")
        return split
    }

    private static func writeStatusLine(_ status: HTTPResponse.Status, into buffer: inout ByteBuffer) {
        buffer.writeStaticString("HTTP/1.1 ")
        buffer.writeString(String(status.code))
        buffer.writeStaticString(" ")
        buffer.writeString(status.reasonPhrase)
        buffer.writeStaticString("\r\n")
    }

    /// One field line.
    static func write(_ field: HTTPField, into buffer: inout ByteBuffer) {
        buffer.writeString(field.name.rawName)
        buffer.writeStaticString(": ")
        buffer.writeString(field.value)
        buffer.writeStaticString("\r\n")
    }
}
