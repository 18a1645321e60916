import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// One HTTP/1 connection of `thumbcache serve`, or of any Hummingbird app that mounts `ThumbcacheEndpoints`
/// (`HTTPServerBuilder.thumbcacheHTTP1`): every handler a connection passes through, in order, in `setup`, around
/// one `ConnectionState` that they share instead of reaching into each other.
package struct ThumbcacheHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    package typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    package struct Configuration: Sendable {
        /// How long a connection may take to send a whole request head, from when it opens or its last answer
        /// ends (the idle limit and the slow-header limit in one), and how long a client may take no bytes of
        /// an answer still unsent before it is judged to have stopped reading (`ConnectionState.judge`).
        package var headDeadline: Duration = .seconds(10)
        /// The `Server` field of every answer; nil sends none.
        package var serverName: String? = "thumbcache"
        /// Memory hits answered from the request bytes (`WireHitHandler`); off, every request takes the router,
        /// with the same answers (the differential tests compare the two).
        package var answersHitsFromBytes = true
        /// NIO's decoder limits.
        package var decoder = HTTP1Channel.Configuration.DecoderConfiguration()

        package init() {}
    }

    package let responder: HTTPChannelHandler.Responder
    let endpoints: ThumbcacheEndpoints
    let configuration: Configuration
    /// `--max-connections`: idle connections reported, the longest idle closed at the limit; nil for none.
    let connections: OpenConnections?

    init(responder: @escaping HTTPChannelHandler.Responder, endpoints: ThumbcacheEndpoints, configuration: Configuration,
         connections: OpenConnections?) {
        self.responder = responder
        self.endpoints = endpoints
        self.configuration = configuration
        self.connections = connections
    }

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let pipeline = channel.pipeline.syncOperations
            let endpoints = self.endpoints
            let connection = ConnectionState(channel: channel, headDeadline: TimeAmount(configuration.headDeadline),
                                             connections: connections,
                                             readPaused: { endpoints.metrics.readPaused(unsentAnswerBytes: $0) },
                                             closedByDeadline: { endpoints.metrics.closedByDeadline($0) })
            // The socket's side: what is written to it, for the deadline's judgement of a draining answer.
            try pipeline.addHandler(SocketWrites(connection: connection))
            // Bytes: memory hits answered here, everything else framed and handed on.
            if configuration.answersHitsFromBytes {
                try pipeline.addHandler(WireHitHandler(endpoints: endpoints, connection: connection, serverName: configuration.serverName))
            }
            // NIO's HTTP/1 encoder and decoder.
            var limits = NIODecoderLimits()
            limits.maxHeaderFieldSize = configuration.decoder.maxHeaderFieldSize
            limits.maxHeaderListSize = configuration.decoder.maxHeaderListSize
            limits.maxHeaderFieldCount = configuration.decoder.maxHeaderFieldCount
            try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: false,
                                                     withOutboundHeaderValidation: false, withEncoderConfiguration: .init(),
                                                     withDecoderLimitConfiguration: limits)
            // NIO's request heads: `Host` and the HTTP/1.0 close.
            try pipeline.addHandler(RequestHeadRules())
            // NIO's HTTP parts to HTTP types.
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            // What the router gets and answers, for the connection's state; answers stamped.
            try pipeline.addHandler(RouterTraffic(connection: connection, serverName: configuration.serverName,
                                                  isStopping: { endpoints.isStopping }))
            // Hummingbird's: closes idle connections when the server shuts down (its idle timer is off: the head
            // deadline above sees every request, the wire's answers too).
            try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    package func handle(value asyncChannel: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: asyncChannel, logger: logger)
    }
}

private typealias NIODecoderLimits = NIOHTTPDecoderLimitConfiguration

extension TimeAmount {
    init(_ duration: Duration) {
        self = .nanoseconds(duration.nanoseconds)
    }
}

extension HTTPServerBuilder {
    /// An HTTP/1 server whose connections are `ThumbcacheHTTP1Channel`s: an app that mounts `endpoints` on its
    /// router (`ThumbcacheEndpoints.register(on:)`) gets the same connection rules as `thumbcache serve` (the head
    /// deadline, the HTTP/1.0 close, `Host`, memory hits from the bytes). Give the app `serverName: nil` in its
    /// `ApplicationConfiguration`: the channel names the server.
    package static func thumbcacheHTTP1(endpoints: ThumbcacheEndpoints,
                                       configuration: ThumbcacheHTTP1Channel.Configuration = .init()) -> HTTPServerBuilder {
        thumbcacheHTTP1(endpoints: endpoints, configuration: configuration, connections: nil)
    }

    static func thumbcacheHTTP1(endpoints: ThumbcacheEndpoints, configuration: ThumbcacheHTTP1Channel.Configuration,
                                connections: OpenConnections?) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            ThumbcacheHTTP1Channel(responder: responder, endpoints: endpoints, configuration: configuration, connections: connections)
        }
    }
}
