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

    /// Sets `Date`, and `Server` when the server has a name.
    static func stamp(_ fields: inout HTTPFields, serverName: String?) {
        fields[.date] = date.text
        if let serverName { fields[.server] = serverName }
    }

    /// `HTTP/1.1 <code> <reason>`, the fields stamped, and the blank line.
    static func write(status: HTTPResponse.Status, fields: HTTPFields, serverName: String?, into buffer: inout ByteBuffer) {
        var fields = fields
        stamp(&fields, serverName: serverName)
        buffer.writeStaticString("HTTP/1.1 ")
        buffer.writeString(String(status.code))
        buffer.writeStaticString(" ")
        buffer.writeString(status.reasonPhrase)
        buffer.writeStaticString("\r\n")
        for field in fields {
            buffer.writeString(field.name.rawName)
            buffer.writeStaticString(": ")
            buffer.writeString(field.value)
            buffer.writeStaticString("\r\n")
        }
        buffer.writeStaticString("\r\n")
    }
}
