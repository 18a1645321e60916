import NIOCore
import NIOHTTP1

/// The HTTP/1 rules NIO's decoder leaves to the server, applied to its request heads while they still carry the
/// version and the raw fields (before `HTTP1ToHTTPServerCodec` turns them into HTTP types):
/// - `Host` (RFC 9112 §3.2, `HostField`): a head without one (HTTP/1.1), with two, or with a malformed one is
///   refused like the decoder's own errors: the error ends the request stream, and Hummingbird answers 400 and
///   closes. Nothing of the connection is passed on after it.
/// - HTTP/1.0 without `Connection: keep-alive` (RFC 9112 §9.3): the head gets `Connection: close`, so the router
///   answers and closes, as HTTP/1.0 clients such as ApacheBench wait for.
/// - A request target longer than `maximumTargetBytes` is refused the same way, before the router splits it and the
///   check parses and memoises it: what any request costs is bounded whatever its URL carries (issue 33: a 60 KB
///   `cb` made every memory hit of its URL cost 3–5 ms). nginx's default refuses request lines over 8 KB.
final class RequestHeadRules: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    /// The wire's own bound on a whole head (`WireHitHandler.maximumHeadBytes`): a target the wire could not
    /// answer is not answered by the router either.
    static let maximumTargetBytes = WireHitHandler.maximumHeadBytes

    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        let isHTTP10 = head.version.major == 1 && head.version.minor == 0
        guard head.uri.utf8.count <= Self.maximumTargetBytes else {
            refused = true
            context.fireErrorCaught(HTTPParserError.invalidURL)
            return
        }
        guard HostField.accepts(head.headers["Host"], isHTTP11: head.version.major == 1 && head.version.minor >= 1) else {
            refused = true
            context.fireErrorCaught(HTTPParserError.invalidHost)
            return
        }
        if isHTTP10 && !head.isKeepAlive {
            head.headers.replaceOrAdd(name: "Connection", value: "close")
            context.fireChannelRead(wrapInboundOut(.head(head)))
        } else {
            context.fireChannelRead(data)
        }
    }
}
