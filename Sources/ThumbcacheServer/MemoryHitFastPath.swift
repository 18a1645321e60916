import HTTPTypes
import NIOCore
import NIOHTTPTypes
import ThumbcacheKit

/// Answers thumbnail requests that hit the memory cache on the event loop that read them, without
/// Hummingbird's per-request task, router and middleware: those were most of a memory hit's cost (a profile
/// at 10k requests/s: the hop into a task and back, the router's catch-all, a request logger per request).
/// Everything else (a miss, another route, a path or signature that does not check out, `Connection: close`,
/// stopping) passes through untouched, and Hummingbird answers it; both build the answer with
/// `ThumbcacheRoutes` and `ThumbnailResponder`, so the headers, 304s, HEAD and the access log are the same.
/// Most hits never get this far: the `MemoryHitWirePath` this handler installs answers them from the request's
/// bytes, before NIO's HTTP/1 codec. This one answers the hits that one leaves to the decoder (an HTTP/1.0
/// keep-alive request, a head outside its plain grammar, anything after a request with a body), and counts the
/// requests Hummingbird is answering, which the wire path must not overtake.
/// Pipelined requests keep their order: while Hummingbird has a request of this connection whose answer has
/// not ended, the next ones go to it too. Hummingbird's connection-state handler, further up, does not see the
/// requests answered here, so its idle timeout is off and `RequestHeadDeadline` (which sees every other request
/// and answer, and is told of the wire path's) closes idle connections instead.
final class MemoryHitFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The `Date` header, as Hummingbird sets it on its answers.
    static let date = PerSecondText(HTTPDate.format)

    private let routes: ThumbcacheRoutes
    private let serverName: String
    /// The rest (body, end) of a request answered here, which Hummingbird must not see.
    private var discarding = false
    /// Requests passed to Hummingbird whose answers have not ended yet.
    private(set) var routedInFlight = 0
    /// Request heads that reached this handler: `MemoryHitWirePath` learns from it whether the decoder made a
    /// request of a head it passed on.
    private(set) var headsSeen = 0
    /// Set by `MemoryHitWirePath` while it passes on a head it already tried to answer (a miss, or a connection
    /// that must wait): asking `memoryHitAnswer` again here would only repeat the lookups.
    var routesNextHead = false
    /// The answer being written says `Connection: close`: the connection closes after it.
    private var closingAfterAnswer = false

    init(routes: ThumbcacheRoutes, serverName: String) {
        self.routes = routes
        self.serverName = serverName
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if routes.configuration.memoryHitWirePath {
            MemoryHitWirePath.install(in: context.pipeline.syncOperations, routes: routes, serverName: serverName, fastPath: self)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            headsSeen &+= 1
            if routesNextHead {  // the wire path asked the same question of this request and got no answer
                routedInFlight += 1
                context.fireChannelRead(data)
                return
            }
            let started = ContinuousClock.now
            let rawPath = request.path ?? ""
            // By bytes: searching the Characters was 2 % of a hit's cost.
            let path = rawPath.utf8.firstIndex(of: UInt8(ascii: "?")).map { String(rawPath[..<$0]) } ?? rawPath
            // Not while the connection cannot take more (see `MemoryHitWirePath.answer`).
            guard routedInFlight == 0, context.channel.isWritable,
                  let answer = routes.memoryHitAnswer(method: request.method, path: path, headers: request.headerFields) else {
                routedInFlight += 1
                context.fireChannelRead(data)
                return
            }
            discarding = true
            var headers = answer.headers
            headers[.date] = Self.date.text
            headers[.server] = serverName
            context.write(wrapOutboundOut(.head(HTTPResponse(status: answer.status, headerFields: headers))), promise: nil)
            if let body = answer.body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            routes.accessLog.record(answer, method: request.method.rawValue, path: path, started: started)
        case .body:
            if !discarding { context.fireChannelRead(data) }
        case .end:
            if discarding {
                discarding = false
            } else {
                context.fireChannelRead(data)
            }
        }
    }

    /// Counts the router's answers, and while the server drains (`ThumbcacheRoutes.isStopping`) says
    /// `Connection: close` on them and closes after each: a keep-alive client goes to another instance.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var response) where routes.isStopping:
            closingAfterAnswer = true
            response.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(response)), promise: promise)
        case .end:
            if routedInFlight > 0 { routedInFlight -= 1 }
            guard closingAfterAnswer else { return context.write(data, promise: promise) }
            let channel = context.channel
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            written.futureResult.cascade(to: promise)
            context.writeAndFlush(data, promise: written)
        default:
            context.write(data, promise: promise)
        }
    }
}
