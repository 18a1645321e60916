import NIOCore

/// First in the pipeline, next to the socket: tells the connection's `ConnectionState` what is written to the
/// socket, so its deadline can judge a client by the answer bytes it takes rather than by the clock alone. It
/// counts the bytes of every write (the wire's answers and NIO's encoded ones alike: what the channel reports
/// unsent is out of the same bytes), and after a flush that a new deadline waits on, says what is left unsent.
final class SocketWrites: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private let connection: ConnectionState

    init(connection: ConnectionState) {
        self.connection = connection
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        connection.queued(answerBytes: unwrapOutboundIn(data).readableBytes)
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        context.flush()
        // Asked only when a deadline needs its mark: reading the channel's option on every flush is not free.
        if connection.marksAtFlush { connection.flushed(unsentAnswerBytes: connection.unsentAnswerBytes()) }
    }
}
