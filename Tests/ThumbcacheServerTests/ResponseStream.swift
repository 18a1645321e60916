/// Everything a server sent back on one connection, read as a sequence of HTTP/1.1 answers and reduced to what
/// a client acts on: status, framing, `Connection: close`, the body (as a digest) and `X-Thumbcache`. Headers
/// that differ from answer to answer (`Date`, `Server-Timing`, `Cache-Control`'s ticking max-age) are left
/// out. `SmugglingDifferentialTests` requires two servers to send equal ones for the same request bytes.
struct ResponseStream: Equatable, CustomStringConvertible {
    var answers: [Answer]
    /// What followed the last answer that parsed, escaped (the first line of it): "" when everything parsed.
    var unparsed: String
    /// The server closed the connection (end of stream or reset) rather than the hang guard ending the read.
    var closed: Bool

    struct Answer: Equatable, CustomStringConvertible {
        var status: Int
        var framing: Framing
        /// The answer said `Connection: close`.
        var closes: Bool
        /// The body's length and FNV-1a digest.
        var body: String
        var served: String?

        var description: String {
            "\(status) \(framing)\(closes ? " close" : "") body=\(body)" + (served.map { " X-Thumbcache=\($0)" } ?? "")
        }
    }

    enum Framing: Equatable, CustomStringConvertible {
        /// `Content-Length` and that many bytes.
        case length(Int)
        /// `Content-Length` with no body after it: the answer to a HEAD (no body this server sends starts with
        /// `HTTP/`, so the next bytes being an answer or the end tells it from a body).
        case lengthWithoutBody(Int)
        /// `Content-Length`, and the stream ended inside the body.
        case truncated(Int)
        case chunked
        /// Neither: the body runs until the connection closes.
        case untilClose
        /// 1xx, 204 and 304 have no body whatever their headers say.
        case none

        var description: String {
            switch self {
            case .length(let n): "length=\(n)"
            case .lengthWithoutBody(let n): "length=\(n) (no body)"
            case .truncated(let n): "length=\(n) (truncated)"
            case .chunked: "chunked"
            case .untilClose: "until-close"
            case .none: "no-body"
            }
        }
    }

    var description: String {
        var lines = answers.enumerated().map { "  \($0.offset + 1). \($0.element)" }
        if !unparsed.isEmpty { lines.append("  unparsed: \(unparsed)") }
        lines.append(closed ? "  closed by the server" : "  NOT closed (hang guard)")
        return lines.joined(separator: "\n")
    }

    init(parsing bytes: [UInt8], closed: Bool) {
        self.closed = closed
        answers = []
        var index = 0
        while index < bytes.count, let (answer, end) = Self.answer(in: bytes, at: index) {
            answers.append(answer)
            index = end
        }
        let rest = bytes[index...]
        let firstLine = rest.prefix { $0 != 10 }.prefix(120)
        unparsed = rest.isEmpty ? "" : Self.escaped(firstLine) + (firstLine.count < rest.count ? "… (\(rest.count) bytes)" : "")
    }

    /// The answer starting at `start` and the index after it, or nil when the bytes there are not one.
    private static func answer(in bytes: [UInt8], at start: Int) -> (Answer, Int)? {
        guard let (statusLine, afterStatus) = line(in: bytes, at: start),
              statusLine.count >= 12, statusLine.starts(with: Array("HTTP/1.1 ".utf8)),
              let status = Int(String(decoding: statusLine[9..<12], as: UTF8.self)) else { return nil }
        var index = afterStatus
        var fields: [(name: String, value: String)] = []
        while true {
            guard let (fieldLine, next) = line(in: bytes, at: index) else { return nil }
            index = next
            if fieldLine.isEmpty { break }
            guard let colon = fieldLine.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            let name = String(decoding: fieldLine[..<colon], as: UTF8.self).lowercased()
            let value = String(decoding: fieldLine[(colon + 1)...], as: UTF8.self).trimmingSpaces
            fields.append((name, value))
        }
        func field(_ name: String) -> String? { fields.first { $0.name == name }?.value }
        let closes = fields.contains { $0.name == "connection" && $0.value.lowercased().contains("close") }
        var answer = Answer(status: status, framing: .none, closes: closes, body: digest([]), served: field("x-thumbcache"))
        if (100..<200).contains(status) || status == 204 || status == 304 { return (answer, index) }
        if field("transfer-encoding")?.lowercased().hasSuffix("chunked") == true {
            guard let (body, end) = chunkedBody(in: bytes, at: index) else { return nil }
            answer.framing = .chunked
            answer.body = digest(body)
            return (answer, end)
        }
        if let lengthText = field("content-length") {
            guard let length = Int(lengthText), length >= 0 else { return nil }
            let rest = bytes[index...]
            if length > 0, rest.isEmpty || rest.starts(with: Array("HTTP/".utf8)) {
                answer.framing = .lengthWithoutBody(length)
                return (answer, index)
            }
            let end = min(bytes.count, index + length)
            answer.framing = end - index == length ? .length(length) : .truncated(length)
            answer.body = digest(bytes[index..<end])
            return (answer, end)
        }
        answer.framing = .untilClose
        answer.body = digest(bytes[index...])
        return (answer, bytes.count)
    }

    /// The chunks' data from `start` through the last chunk and trailers, and the index after them.
    private static func chunkedBody(in bytes: [UInt8], at start: Int) -> ([UInt8], Int)? {
        var body: [UInt8] = [], index = start
        while true {
            guard let (sizeLine, afterSize) = line(in: bytes, at: index) else { return nil }
            let digits = sizeLine.prefix { $0 != UInt8(ascii: ";") }
            guard let size = Int(String(decoding: digits, as: UTF8.self).trimmingSpaces, radix: 16), size >= 0 else { return nil }
            if size == 0 {
                index = afterSize
                while true {  // trailer fields, then the blank line
                    guard let (trailer, next) = line(in: bytes, at: index) else { return nil }
                    index = next
                    if trailer.isEmpty { return (body, index) }
                }
            }
            let dataEnd = afterSize + size
            guard dataEnd + 2 <= bytes.count, bytes[dataEnd] == 13, bytes[dataEnd + 1] == 10 else { return nil }
            body += bytes[afterSize..<dataEnd]
            index = dataEnd + 2
        }
    }

    /// The line at `start` without its CRLF, and the index after the CRLF; nil without one.
    private static func line(in bytes: [UInt8], at start: Int) -> ([UInt8], Int)? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == 13, bytes[index + 1] == 10 { return (Array(bytes[start..<index]), index + 2) }
            index += 1
        }
        return nil
    }

    /// Length and 64-bit FNV-1a: enough to tell two bodies apart, short enough to print.
    static func digest<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325, count = 0
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            count += 1
        }
        return "\(count):\(String(hash, radix: 16))"
    }

    /// Printable ASCII as it is, everything else escaped (`\r`, `\n`, `\t`, `\0`, `\xNN`), backslash doubled.
    static func escaped<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        var text = ""
        for byte in bytes {
            switch byte {
            case 13: text += "\\r"
            case 10: text += "\\n"
            case 9: text += "\\t"
            case 0: text += "\\0"
            case UInt8(ascii: "\\"): text += "\\\\"
            case 32..<127: text.unicodeScalars.append(Unicode.Scalar(byte))
            default: text += "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }
        }
        return text
    }
}

private extension String {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while scalars.first == " " || scalars.first == "\t" { scalars = scalars.dropFirst() }
        while scalars.last == " " || scalars.last == "\t" { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
