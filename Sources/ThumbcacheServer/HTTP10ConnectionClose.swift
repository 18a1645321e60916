import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// An HTTP/1.0 request without `Connection: keep-alive` gets its answer and then the connection is closed
/// (RFC 9112 §9.3), as HTTP/1.0 clients such as ApacheBench wait for. Hummingbird closes only on
/// `Connection: close`, and the HTTP version is gone once NIO's HTTP/1 parts become HTTP types
/// (`HTTP1ToHTTPServerCodec`), so this handler, in front of that codec, says `Connection: close` for the
/// client. Everything after it (the memory-hit fast path, which leaves such requests to Hummingbird, and
/// Hummingbird) then closes as for an HTTP/1.1 client that asked.
final class HTTP10ConnectionClose: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data), head.version.major == 1, head.version.minor == 0,
              !head.isKeepAlive else {
            context.fireChannelRead(data)
            return
        }
        head.headers.replaceOrAdd(name: "Connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    /// Goes among Hummingbird's `additionalChannelHandlers`, which come after the codec: once added, it puts an
    /// `HTTP10ConnectionClose` and a `HostFieldCheck` in front of the codec (both read NIO's request head, with
    /// its version and raw fields) and leaves.
    final class Installer: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart

        func handlerAdded(context: ChannelHandlerContext) {
            let pipeline = context.pipeline.syncOperations
            if let codec = try? pipeline.handler(type: HTTP1ToHTTPServerCodec.self) {
                try? pipeline.addHandler(HostFieldCheck(), position: .before(codec))
                try? pipeline.addHandler(HTTP10ConnectionClose(), position: .before(codec))
            }
            pipeline.removeHandler(context: context, promise: nil)
        }
    }
}
