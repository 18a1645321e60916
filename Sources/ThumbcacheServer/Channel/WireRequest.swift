import HTTPTypes
import NIOCore

/// A request head as `WireHitHandler` reads it. `.unframed`: one whose end it cannot be sure of (a body, an
/// upgrade, a line it does not parse), after which the decoder must get the connection's bytes.
enum WireRequestParse {
    case request(WireRequest)
    case unframed
}

struct WireRequest {
    var isHead = false
    /// `GET` or `HEAD`, HTTP/1.1, origin form: the kind `WireHitHandler` may answer.
    var isAnswerable = false
    var isHTTP11 = false
    /// llhttp's `should_keep_alive` is false for it (never answerable): NIO's decoder reads nothing after it.
    var closesConnection = false
    /// The target without its query.
    var path = ""
    var fields = HTTPFields()

    /// Parses a whole head (request line, header lines, blank line). Only visible ASCII in the target and
    /// names, visible ASCII, space and tab in values; no obs-fold; nothing that gives the request a body.
    static func parse(_ head: ByteBuffer) -> WireRequestParse {
        head.withUnsafeReadableBytes { bytes -> WireRequestParse in
            var request = WireRequest()
            var lineStart = 0
            var isFirstLine = true
            var hosts: [Substring] = [], connections: [Substring] = [], contentLengths = 0
            while lineStart < bytes.count {
                guard let lineEnd = bytes[lineStart...].firstIndex(of: 10), lineEnd > lineStart, bytes[lineEnd - 1] == 13 else {
                    return .unframed
                }
                let line = UnsafeRawBufferPointer(rebasing: bytes[lineStart..<(lineEnd - 1)])
                lineStart = lineEnd + 1
                if line.isEmpty {
                    guard lineStart == bytes.count else { return .unframed }
                    // Heads the decoder's side refuses (400) are its to answer: two `Content-Length`s (llhttp),
                    // a missing, repeated or malformed `Host` (`RequestHeadRules`). So is one after which it parses
                    // no more (the router answers those).
                    request.closesConnection = WireRequest.closesConnection(connections, isHTTP11: request.isHTTP11)
                    if request.closesConnection || contentLengths > 1 || !HostField.accepts(hosts, isHTTP11: request.isHTTP11) {
                        request.isAnswerable = false
                    }
                    return .request(request)
                }
                if isFirstLine {
                    isFirstLine = false
                    guard request.readRequestLine(line) else { return .unframed }
                    continue
                }
                guard request.fields.count < WireHitHandler.maximumFields, let (name, value) = field(line) else { return .unframed }
                switch name {
                case .contentLength:
                    guard value == "0" else { return .unframed }  // "0 " and "0\t" too: llhttp takes the one, refuses the other
                    contentLengths += 1
                case WireRequest.host:
                    hosts.append(value[...])
                case .connection, WireRequest.proxyConnection:
                    connections.append(value[...])
                case .transferEncoding, .upgrade:
                    return .unframed
                default:
                    break
                }
                // Without the spaces and tabs after the value, as HTTP types (and so the router) have it.
                request.fields.append(HTTPField(name: name, value: value))
            }
            return .unframed
        }
    }

    /// `GET|HEAD SP target SP HTTP/1.x`. False when it is not of that shape or has another method (which the
    /// decoder may frame differently: `CONNECT` stops its parsing); HTTP/1.0 or an absolute-form target parses
    /// but is not answerable.
    private mutating func readRequestLine(_ line: UnsafeRawBufferPointer) -> Bool {
        guard let firstSpace = line.firstIndex(of: 32),
              let secondSpace = line[(firstSpace + 1)...].firstIndex(of: 32),
              line.count - secondSpace - 1 == 8 else { return false }
        let method = line[..<firstSpace]
        let target = line[(firstSpace + 1)..<secondSpace]
        let version = line[(secondSpace + 1)...]
        isHead = method.elementsEqual("HEAD".utf8)
        guard isHead || method.elementsEqual("GET".utf8), !target.isEmpty,
              target.allSatisfy({ $0 > 32 && $0 < 127 }), version.starts(with: "HTTP/1.".utf8),
              let minor = version.last, minor == UInt8(ascii: "0") || minor == UInt8(ascii: "1") else { return false }
        let query = target.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex
        path = String(decoding: target[..<query], as: UTF8.self)
        isHTTP11 = minor == UInt8(ascii: "1")
        // A fragment is not sent in a target (llhttp splits it off; the router never sees it): the decoder's.
        isAnswerable = isHTTP11 && target.first == UInt8(ascii: "/") && !target.contains(UInt8(ascii: "#"))
        return true
    }

    /// `name: value`, the value without the spaces and tabs before it but with those after it, as NIO's decoder
    /// hands it to `RequestHeadRules` (which refuses `Host: a ` where a trimmed value would pass).
    private static func field(_ line: UnsafeRawBufferPointer) -> (HTTPField.Name, String)? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return nil }
        let name = line[..<colon]
        var value = line[(colon + 1)...]
        guard name.allSatisfy(isTokenByte), value.allSatisfy({ ($0 >= 32 && $0 < 127) || $0 == 9 }) else { return nil }
        while let first = value.first, first == 32 || first == 9 { value = value.dropFirst() }
        guard let fieldName = HTTPField.Name(String(decoding: name, as: UTF8.self)) else { return nil }
        return (fieldName, String(decoding: value, as: UTF8.self))
    }

    /// Whether llhttp may take the request to close the connection: it reads `Proxy-Connection` as `Connection`,
    /// and after a `close` token (HTTP/1.1) or without a `keep-alive` one (HTTP/1.0) it parses nothing more. Any
    /// `close` in those values counts, token or not: where the two readings could differ, this one closes.
    private static func closesConnection(_ values: [Substring], isHTTP11: Bool) -> Bool {
        let close = Array("close".utf8)
        for value in values {
            let bytes = Array(value.utf8)
            // `| 0x20` lower-cases letters; no other byte lower-cases to one of "close"'s.
            if bytes.count >= close.count, (0...(bytes.count - close.count)).contains(where: { start in
                close.indices.allSatisfy { bytes[start + $0] | 0x20 == close[$0] }
            }) { return true }
        }
        return !isHTTP11 && !values.contains { HeaderList.containsToken(String($0), "keep-alive") == true }
    }

    /// HTTP types spell it `HTTPRequest.authority`; on the wire it is a field.
    private static let host = HTTPField.Name("Host")!
    /// llhttp reads it as `Connection`.
    private static let proxyConnection = HTTPField.Name("Proxy-Connection")!

    /// RFC 9110 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

// MARK: - Framing

extension WireRequest {
    /// The length of the head at the start of `buffer` (through its blank line), or nil while it is incomplete.
    /// `from`: how many leading bytes are known not to hold the blank line's end.
    static func headLength(_ buffer: ByteBuffer, from searched: Int = 0) -> Int? {
        buffer.withUnsafeReadableBytes { bytes -> Int? in
            guard bytes.count >= 4 else { return nil }
            var index = max(3, searched)
            while index < bytes.count {
                // Steps by where the blank line could still end: after a byte that is neither CR nor LF, at
                // least four bytes on; after a CR, one; after an LF that does not end it, two.
                switch bytes[index] {
                case 10:
                    if bytes[index - 1] == 13, bytes[index - 2] == 10, bytes[index - 3] == 13 { return index + 1 }
                    index += 2
                case 13:
                    index += 1
                default:
                    index += 4
                }
            }
            return nil
        }
    }

    /// Whether an LF in `buffer`, at `from` or later, is not preceded by a CR.
    static func hasBareLineFeed(_ buffer: ByteBuffer, from searched: Int = 0) -> Bool {
        buffer.withUnsafeReadableBytes { bytes in
            var index = searched
            while index < bytes.count {
                if bytes[index] == 10, index == 0 || bytes[index - 1] != 13 { return true }
                index += 1
            }
            return false
        }
    }
}
