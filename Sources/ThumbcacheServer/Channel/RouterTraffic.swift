import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Sits between NIO's codec and Hummingbird and tells the connection's `ConnectionState` what passes: the request
/// heads the router gets, the decoder's failures, the router's answers beginning and ending. It stamps those
/// answers' heads (`AnswerHead.stamp`, as the wire's answers are), says `Connection: close` on them while the server
/// drains (a keep-alive client goes to another instance), and closes the connection after an answer that says
/// `Connection: close`. It also starts and ends the connection's state with the channel, and holds the channel's
/// reads while the state says so (backpressure: a client that does not read its answers is not read from).
final class RouterTraffic: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let connection: ConnectionState
    private let isStopping: @Sendable () -> Bool
    private let serverName: String?

    init(connection: ConnectionState, serverName: String?, isStopping: @escaping @Sendable () -> Bool) {
        self.connection = connection
        self.serverName = serverName
        self.isStopping = isStopping
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { connection.opened() }
    }

    func channelActive(context: ChannelHandlerContext) {
        connection.opened()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.closed()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        connection.closed()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { connection.decoderProducedHead() }
        context.fireChannelRead(data)
    }

    func read(context: ChannelHandlerContext) {
        if connection.readRequested() { context.read() }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if connection.writabilityChanged(isWritable: context.channel.isWritable, unsentAnswerBytes: connection.unsentAnswerBytes()) {
            context.read()
        }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        connection.decoderFailed()
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var response):
            if isStopping() { response.headerFields[.connection] = "close" }
            AnswerHead.stamp(&response.headerFields, serverName: serverName)
            let closes = response.headerFields[values: .connection].contains { HeaderList.containsToken($0, "close") == true }
            connection.routedAnswerBegins(closesConnection: closes)
            context.write(wrapOutboundOut(.head(response)), promise: promise)
        case .end:
            guard connection.routedAnswerEnded() else { return context.write(data, promise: promise) }
            let channel = context.channel
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            written.futureResult.cascade(to: promise)
            context.writeAndFlush(data, promise: written)
        case .body:
            context.write(data, promise: promise)
        }
    }
}
