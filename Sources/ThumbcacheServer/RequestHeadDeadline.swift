import NIOCore
import NIOHTTPTypes

/// Closes a connection whose next request head has not fully arrived within `timeout` of the connection
/// opening or of the previous response ending: a client that trickles its headers (slowloris) cannot hold
/// a connection. Hummingbird's idle timeout alone does not cut it, since every byte counts as activity.
final class RequestHeadDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let timeout: TimeAmount
    /// Told when the connection waits for a head and when it stops waiting (it may be closed at the limit).
    private let connections: OpenConnections?
    private var timer: Scheduled<Void>?
    private var context: ChannelHandlerContext?
    /// Whether the connection has waited for a head before (false: it is arriving).
    private var armedBefore = false

    init(timeout: TimeAmount, connections: OpenConnections? = nil) {
        self.timeout = timeout
        self.connections = connections
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            timer?.cancel()
            timer = nil
            connections?.busy(context.channel)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { arm(context) }
        context.write(data, promise: promise)
    }

    /// A request was answered before it reached this handler (`MemoryHitWirePath`): the wait for the next
    /// head starts now.
    func restart() {
        if let context { arm(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        connections?.busy(context.channel)
        self.context = nil
        timer?.cancel()
        timer = nil
    }

    private func arm(_ context: ChannelHandlerContext) {
        timer?.cancel()
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        connections?.idle(channel, arriving: !armedBefore)
        armedBefore = true
    }
}
