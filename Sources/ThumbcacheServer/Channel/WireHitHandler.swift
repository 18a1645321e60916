import HTTPTypes
import NIOCore

/// Answers memory hits straight from the request's bytes, in front of NIO's HTTP/1 decoder and encoder: the codec
/// and Hummingbird's per-request task were most of a hit's cost (docs/benchmarks.md, "memory hits").
///
/// It frames heads itself (`WireRequest`) and answers only what it read completely: a `GET` or `HEAD` in origin
/// form, HTTP/1.1, header lines of plain visible ASCII, no body, that `ThumbcacheEndpoints.memoryHitAnswer` finds in
/// memory, when the connection's `ConnectionState` allows it. Every other whole head goes on to the decoder, so NIO
/// and Hummingbird keep judging what is malformed; the decoder always gets whole heads while the bytes are framed
/// here, and every byte once it owns them. Answers are written with `AnswerHead`, the serialiser the router's
/// answers share.
final class WireHitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A head longer than this is left to the decoder (its own limit is 80 KiB); ours are a few hundred bytes.
    static let maximumHeadBytes = 16 * 1024
    /// A head with more header lines than this is left to the decoder.
    static let maximumFields = 64

    private let endpoints: ThumbcacheEndpoints
    private let connection: ConnectionState
    private let serverName: String?
    /// Bytes of a head still arriving.
    private var pending: ByteBuffer?
    /// How many leading bytes of `pending` have been searched (no blank line, no bare LF in them).
    private var scanned = 0
    /// Answers written in this read, flushed at its end.
    private var answered = false

    init(endpoints: ThumbcacheEndpoints, connection: ConnectionState, serverName: String?) {
        self.endpoints = endpoints
        self.connection = connection
        self.serverName = serverName
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if connection.decoderOwnsBytes {
            context.fireChannelRead(data)
            return
        }
        var incoming = unwrapInboundIn(data)
        if var buffer = pending {
            pending = nil  // before the append: the buffer's storage stays unique, so it grows in place
            buffer.writeBuffer(&incoming)
            incoming = buffer
        }
        while !connection.decoderOwnsBytes, let headLength = WireRequest.headLength(incoming, from: scanned) {
            scanned = 0
            let head = incoming.readSlice(length: headLength)!
            connection.headFramed()
            switch WireRequest.parse(head) {
            case .request(let request):
                if !answer(request, context: context) {
                    connection.handedToDecoder()
                    context.fireChannelRead(wrapInboundOut(head))
                }
                // llhttp parses nothing after a request that closes the connection: the rest is the decoder's.
                if request.closesConnection { connection.decoderTakesOver() }
            case .unframed:
                connection.decoderTakesOver()
                context.fireChannelRead(wrapInboundOut(head))
            }
        }
        guard incoming.readableBytes > 0 else { return }
        // A head that will not end in CRLF CRLF here (bare LFs, which the decoder may take) or is too long.
        if connection.decoderOwnsBytes || incoming.readableBytes > Self.maximumHeadBytes
            || WireRequest.hasBareLineFeed(incoming, from: scanned) {
            connection.decoderTakesOver()
            context.fireChannelRead(wrapInboundOut(incoming))
        } else {
            // Only the new bytes are searched next time: a head sent a byte at a time costs linear work.
            scanned = incoming.readableBytes
            pending = incoming
        }
    }

    /// A client that half-closes with a head still arriving gets the decoder's answer to it.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { handPendingToDecoder(context) }
        context.fireUserInboundEventTriggered(event)
    }

    /// Bytes of a head still arriving go to the decoder with the handler's removal.
    func removeHandler(context: ChannelHandlerContext, removalToken: ChannelHandlerContext.RemovalToken) {
        handPendingToDecoder(context)
        context.leavePipeline(removalToken: removalToken)
    }

    private func handPendingToDecoder(_ context: ChannelHandlerContext) {
        guard let pending else { return }
        self.pending = nil
        connection.decoderTakesOver()
        context.fireChannelRead(wrapInboundOut(pending))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if answered {
            answered = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    /// Writes the answer when the request is a memory hit the connection may answer now; false otherwise.
    private func answer(_ request: WireRequest, context: ChannelHandlerContext) -> Bool {
        guard request.isAnswerable, connection.mayAnswerFromBytes(isWritable: context.channel.isWritable) else { return false }
        let started = ContinuousClock.now
        let method: HTTPRequest.Method = request.isHead ? .head : .get
        guard let answer = endpoints.memoryHitAnswer(method: method, path: request.path, headers: request.fields,
                                                     serverName: serverName, allocator: context.channel.allocator)
        else { return false }
        context.write(wrapOutboundOut(answer.head), promise: nil)
        if let body = answer.body { context.write(wrapOutboundOut(body), promise: nil) }
        answered = true
        connection.answeredFromBytes()
        endpoints.answeredFromBytes(answer, method: method, started: started)
        return true
    }
}
