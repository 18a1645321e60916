import HTTPTypes
import NIOCore
import NIOHTTP1

/// Answers memory hits straight from the request's bytes, in front of NIO's HTTP/1 decoder and encoder.
/// Measured why: with `MemoryHitFastPath` alone, a memory hit cost the server 2 to 2.5 times nginx's CPU for the
/// same static bytes, and most of that was the HTTP/1 codec and the conversions between NIO's HTTP parts and
/// HTTP types; our own work was about a quarter of it.
///
/// It answers only what it can read completely: a `GET` or `HEAD` in origin form, HTTP/1.1, header lines of
/// plain visible ASCII, no body. Anything else goes on to the decoder untouched, so NIO and Hummingbird
/// keep judging what is malformed. The decoder always sees whole requests: while the connection is being
/// framed here, bytes wait until their head is complete (searched once: a head sent a byte at a time costs
/// linear work), and another method, a body (`Content-Length` other than 0, `Transfer-Encoding`), an
/// `Upgrade`, a head this parser cannot read, one the decoder rejects, or one after which llhttp parses no more
/// (`Connection: close` or `Proxy-Connection: close`, HTTP/1.0 without keep-alive) hands the connection's rest
/// to the decoder for good. `SmugglingDifferentialTests` checks all this against the decoder alone. Answers keep their order: a request is answered here only when no request passed on to
/// Hummingbird is still waiting for its answer (`MemoryHitFastPath.routedInFlight`), and only while the
/// connection is writable, so a client that does not read meets Hummingbird's backpressure.
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
    /// The idle and head-arrival timer, told about the answers sent here (it sees only HTTP parts); nil in an
    /// app's pipeline without one.
    private let deadline: RequestHeadDeadline?
    /// Bytes of a head still arriving.
    private var pending: ByteBuffer?
    /// Once a request this parser cannot frame has gone to the decoder, every later byte goes there too.
    private var passingThrough = false
    /// How many leading bytes of `pending` have been searched (no blank line, no bare LF in them).
    private var scanned = 0
    private var answered = false

    init(routes: ThumbcacheRoutes, serverName: String, fastPath: MemoryHitFastPath, deadline: RequestHeadDeadline?) {
        self.routes = routes
        self.serverName = serverName
        self.fastPath = fastPath
        self.deadline = deadline
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if passingThrough {
            context.fireChannelRead(data)
            return
        }
        if var buffer = pending {
            pending = nil  // before the append: the buffer's storage stays unique, so it grows in place
            buffer.writeBuffer(&incoming)
            incoming = buffer
        }
        while !passingThrough, let headLength = Self.headLength(incoming, from: scanned) {
            scanned = 0
            let head = incoming.readSlice(length: headLength)!
            switch WireRequest.parse(head) {
            case .request(let request):
                if !answer(request, context: context) { forward(head, alreadyAsked: request.isAnswerable, context: context) }
                // llhttp parses nothing after a request that closes the connection; nothing after it is answered here.
                if request.closesConnection { passingThrough = true }
            case .unframed:
                passingThrough = true
                context.fireChannelRead(wrapInboundOut(head))
            }
        }
        guard incoming.readableBytes > 0 else { return }
        // A head that will not end in CRLF CRLF here (bare LFs, which the decoder may take) or is too long.
        if passingThrough || incoming.readableBytes > Self.maximumHeadBytes || Self.hasBareLineFeed(incoming, from: scanned) {
            passingThrough = true
            context.fireChannelRead(wrapInboundOut(incoming))
        } else {
            // Only the new bytes are searched next time: a head sent a byte at a time costs linear work.
            scanned = incoming.readableBytes
            pending = incoming
        }
    }

    /// Passes a whole head the parser framed to the decoder (which hands it on at once). `alreadyAsked`: this
    /// path tried to answer it, so `MemoryHitFastPath` routes it without asking again. When the decoder does not
    /// make a request of it (a head llhttp rejects: `MemoryHitFastPath` sees no `.head`), its error answer is
    /// still to come, so every later byte goes to the decoder too, and nothing is answered here ahead of it.
    private func forward(_ head: ByteBuffer, alreadyAsked: Bool, context: ChannelHandlerContext) {
        let seen = fastPath.headsSeen
        fastPath.routesNextHead = alreadyAsked
        context.fireChannelRead(wrapInboundOut(head))
        fastPath.routesNextHead = false
        if fastPath.headsSeen == seen { passingThrough = true }
    }

    /// A client that half-closes with a head still arriving gets the decoder's answer to it.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed, let pending {
            self.pending = nil
            passingThrough = true
            context.fireChannelRead(wrapInboundOut(pending))
        }
        context.fireUserInboundEventTriggered(event)
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
        // Not while the connection cannot take more: the router's writer waits for it, and a client that sends
        // hits without reading would otherwise queue answers here without bound.
        guard request.isAnswerable, fastPath.routedInFlight == 0, context.channel.isWritable else { return false }
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
        deadline?.restart()
        routes.wirePathAnswers.add(1, ordering: .relaxed)
        routes.accessLog.record(answer, method: method.rawValue, path: request.path, started: started)
        return true
    }

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

    /// Puts a wire path in front of the connection's `HTTPResponseEncoder` (so its answers skip the encoder, and
    /// under TLS it still reads decrypted bytes). Without that encoder (not HTTP/1) it adds nothing. Called from
    /// `MemoryHitFastPath.handlerAdded`: `ThumbcacheService` lists `RequestHeadDeadline` before it, so the
    /// deadline is already in the pipeline.
    static func install(in pipeline: ChannelPipeline.SynchronousOperations, routes: ThumbcacheRoutes, serverName: String,
                        fastPath: MemoryHitFastPath) {
        guard let encoder = try? pipeline.handler(type: HTTPResponseEncoder.self) else { return }
        let wirePath = MemoryHitWirePath(routes: routes, serverName: serverName, fastPath: fastPath,
                                         deadline: try? pipeline.handler(type: RequestHeadDeadline.self))
        try? pipeline.addHandler(wirePath, position: .before(encoder))
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
                    // a missing, repeated or malformed `Host` (`HostFieldCheck`). So is one after which it parses
                    // no more (it answers those through the router or `MemoryHitFastPath`).
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
                guard request.fields.count < MemoryHitWirePath.maximumFields, let (name, value) = field(line) else { return .unframed }
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
                // Without the spaces and tabs after the value, as HTTP types (and so `MemoryHitFastPath`) have it.
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
    /// hands it to `HostFieldCheck` (which refuses `Host: a ` where a trimmed value would pass).
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
