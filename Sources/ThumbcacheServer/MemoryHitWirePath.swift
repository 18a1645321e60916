import HTTPTypes
import NIOCore
import NIOHTTP1

/// Answers memory hits straight from the request's bytes, in front of NIO's HTTP/1 decoder and encoder.
/// Measured why: with `MemoryHitFastPath` alone, a memory hit cost the server about 2.3x nginx's CPU for the same
/// static bytes, and most of that was the HTTP/1 codec and the conversions between NIO's HTTP parts and
/// HTTP types; our own work was about a quarter of it.
///
/// It answers only what it can read completely: a `GET` or `HEAD` in origin form, HTTP/1.1, header lines of
/// plain visible ASCII, no body. Anything else goes on to the decoder untouched, so NIO and Hummingbird
/// keep judging what is malformed. The decoder always sees whole requests: while the connection is being
/// framed here, bytes wait until their head is complete, and a request with a body (`Content-Length`,
/// `Transfer-Encoding`), an `Upgrade`, or a head this parser cannot read hands the connection's rest to the
/// decoder for good. Answers keep their order: a request is answered here only when no request passed on
/// to Hummingbird is still waiting for its answer (`MemoryHitFastPath.routedInFlight`).
///
/// `MemoryHitFastPath` installs it, in front of the `HTTPResponseEncoder`, and it is the source of truth for
/// the answer (`ThumbcacheRoutes.memoryHitAnswer`), so the headers, 304s and the access log are the same.
final class MemoryHitWirePath: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A head longer than this is left to the decoder (its own limit is 80 KiB); ours are a few hundred bytes.
    static let maximumHeadBytes = 16 * 1024
    /// A head with more header lines than this is left to the decoder.
    static let maximumFields = 64

    private let routes: ThumbcacheRoutes
    private let serverName: String
    private let fastPath: MemoryHitFastPath
    /// The idle and head-arrival timer, told about the answers sent here (it sees only HTTP parts).
    private var deadline: RequestHeadDeadline??
    /// Bytes of a head still arriving.
    private var pending: ByteBuffer?
    /// Once a request this parser cannot frame has gone to the decoder, every later byte goes there too.
    private var passingThrough = false
    private var answered = false

    init(routes: ThumbcacheRoutes, serverName: String, fastPath: MemoryHitFastPath) {
        self.routes = routes
        self.serverName = serverName
        self.fastPath = fastPath
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if passingThrough {
            context.fireChannelRead(data)
            return
        }
        if var buffer = pending {
            buffer.writeBuffer(&incoming)
            incoming = buffer
        }
        pending = nil
        while !passingThrough, let headLength = Self.headLength(incoming) {
            let head = incoming.readSlice(length: headLength)!
            switch WireRequest.parse(head) {
            case .request(let request):
                if !answer(request, context: context) { context.fireChannelRead(wrapInboundOut(head)) }
            case .unframed:
                passingThrough = true
                context.fireChannelRead(wrapInboundOut(head))
            }
        }
        guard incoming.readableBytes > 0 else { return }
        // A head that will not end in CRLF CRLF here (bare LFs, which the decoder may take) or is too long.
        if passingThrough || incoming.readableBytes > Self.maximumHeadBytes || Self.hasBareLineFeed(incoming) {
            passingThrough = true
            context.fireChannelRead(wrapInboundOut(incoming))
        } else {
            pending = incoming
        }
    }

    /// Bytes of a head still arriving go to the decoder with the handler's removal.
    func removeHandler(context: ChannelHandlerContext, removalToken: ChannelHandlerContext.RemovalToken) {
        if let pending {
            self.pending = nil
            context.fireChannelRead(wrapInboundOut(pending))
        }
        context.leavePipeline(removalToken: removalToken)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if answered {
            answered = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    /// Writes the answer when the request is a memory hit this connection may answer now; false otherwise.
    private func answer(_ request: WireRequest, context: ChannelHandlerContext) -> Bool {
        guard request.isAnswerable, fastPath.routedInFlight == 0 else { return false }
        let started = ContinuousClock.now
        let method: HTTPRequest.Method = request.isHead ? .head : .get
        guard let answer = routes.memoryHitAnswer(method: method, path: request.path, headers: request.fields) else { return false }
        var head = context.channel.allocator.buffer(capacity: 512)
        head.writeStaticString("HTTP/1.1 ")
        head.writeString(String(answer.status.code))
        head.writeStaticString(" ")
        head.writeString(answer.status.reasonPhrase)
        head.writeStaticString("\r\n")
        for field in answer.headers {
            head.writeString(field.name.rawName)
            head.writeStaticString(": ")
            head.writeString(field.value)
            head.writeStaticString("\r\n")
        }
        head.writeStaticString("Date: ")
        head.writeString(MemoryHitFastPath.date.text)
        head.writeStaticString("\r\nServer: ")
        head.writeString(serverName)
        head.writeStaticString("\r\n\r\n")
        context.write(wrapOutboundOut(head), promise: nil)
        if let body = answer.body { context.write(wrapOutboundOut(body), promise: nil) }
        answered = true
        if deadline == nil { deadline = .some(try? context.pipeline.syncOperations.handler(type: RequestHeadDeadline.self)) }
        deadline??.restart()
        routes.wirePathAnswers.add(1, ordering: .relaxed)
        routes.accessLog.record(method: method.rawValue, path: request.path, status: answer.status.code,
                                bytes: String(answer.contentLength), served: answer.served, duration: started.duration(to: .now))
        return true
    }

    /// The length of the head at the start of `buffer` (through its blank line), or nil while it is incomplete.
    static func headLength(_ buffer: ByteBuffer) -> Int? {
        buffer.withUnsafeReadableBytes { bytes -> Int? in
            guard bytes.count >= 4 else { return nil }
            var index = 3
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

    /// Whether an LF in `buffer` is not preceded by a CR.
    static func hasBareLineFeed(_ buffer: ByteBuffer) -> Bool {
        buffer.withUnsafeReadableBytes { bytes in
            var previous: UInt8 = 0
            for byte in bytes {
                if byte == 10, previous != 13 { return true }
                previous = byte
            }
            return false
        }
    }

    /// Puts a wire path in front of the connection's `HTTPResponseEncoder` (so its answers skip the encoder, and
    /// under TLS it still reads decrypted bytes). Without that encoder (not HTTP/1) it adds nothing.
    static func install(in pipeline: ChannelPipeline.SynchronousOperations, routes: ThumbcacheRoutes, serverName: String,
                        fastPath: MemoryHitFastPath) {
        guard let encoder = try? pipeline.handler(type: HTTPResponseEncoder.self) else { return }
        try? pipeline.addHandler(MemoryHitWirePath(routes: routes, serverName: serverName, fastPath: fastPath), position: .before(encoder))
    }
}

/// A request head as `MemoryHitWirePath` reads it. `.unframed`: one whose end it cannot be sure of (a body, an
/// upgrade, a line it does not parse), after which the decoder must get the connection's bytes.
enum WireRequestParse {
    case request(WireRequest)
    case unframed
}

struct WireRequest {
    var isHead = false
    /// `GET` or `HEAD`, HTTP/1.1, origin form: the kind `MemoryHitWirePath` may answer.
    var isAnswerable = false
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
            while lineStart < bytes.count {
                guard let lineEnd = bytes[lineStart...].firstIndex(of: 10), lineEnd > lineStart, bytes[lineEnd - 1] == 13 else {
                    return .unframed
                }
                let line = UnsafeRawBufferPointer(rebasing: bytes[lineStart..<(lineEnd - 1)])
                lineStart = lineEnd + 1
                if line.isEmpty { return lineStart == bytes.count ? .request(request) : .unframed }
                if isFirstLine {
                    isFirstLine = false
                    guard request.readRequestLine(line) else { return .unframed }
                    continue
                }
                guard request.fields.count < MemoryHitWirePath.maximumFields, let field = field(line) else { return .unframed }
                switch field.name {
                case .contentLength:
                    guard field.value == "0" else { return .unframed }
                case .transferEncoding, .upgrade:
                    return .unframed
                default:
                    break
                }
                request.fields.append(field)
            }
            return .unframed
        }
    }

    /// `METHOD SP target SP HTTP/1.x`. False when it is not of that shape; a method other than GET or HEAD, or
    /// HTTP/1.0, parses but is not answerable.
    private mutating func readRequestLine(_ line: UnsafeRawBufferPointer) -> Bool {
        guard let firstSpace = line.firstIndex(of: 32),
              let secondSpace = line[(firstSpace + 1)...].firstIndex(of: 32),
              line.count - secondSpace - 1 == 8 else { return false }
        let method = line[..<firstSpace]
        let target = line[(firstSpace + 1)..<secondSpace]
        let version = line[(secondSpace + 1)...]
        guard !method.isEmpty, method.allSatisfy(Self.isTokenByte), !target.isEmpty,
              target.allSatisfy({ $0 > 32 && $0 < 127 }), version.starts(with: "HTTP/1.".utf8),
              let minor = version.last, minor == UInt8(ascii: "0") || minor == UInt8(ascii: "1") else { return false }
        isHead = method.elementsEqual("HEAD".utf8)
        let isGet = method.elementsEqual("GET".utf8)
        let query = target.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex
        path = String(decoding: target[..<query], as: UTF8.self)
        isAnswerable = (isGet || isHead) && minor == UInt8(ascii: "1") && target.first == UInt8(ascii: "/")
        return true
    }

    /// `name: value` with optional spaces or tabs around the value.
    private static func field(_ line: UnsafeRawBufferPointer) -> HTTPField? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return nil }
        let name = line[..<colon]
        var value = line[(colon + 1)...]
        guard name.allSatisfy(isTokenByte), value.allSatisfy({ ($0 >= 32 && $0 < 127) || $0 == 9 }) else { return nil }
        while let first = value.first, first == 32 || first == 9 { value = value.dropFirst() }
        while let last = value.last, last == 32 || last == 9 { value = value.dropLast() }
        guard let fieldName = HTTPField.Name(String(decoding: name, as: UTF8.self)) else { return nil }
        return HTTPField(name: fieldName, value: String(decoding: value, as: UTF8.self))
    }

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
