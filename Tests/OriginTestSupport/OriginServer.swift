import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import ThumbcacheKit

/// A real HTTP/1.1 server on 127.0.0.1 for the pipeline tests: it serves scripted responses per path,
/// records every request it gets, and can misbehave (cut a body short, trickle it slowly).
package final class OriginServer: Sendable {
    package struct Request: Sendable {
        package let path: String
        package let headers: [String: String]
    }

    package enum Reply: Sendable {
        case respond(status: Int, headers: [(String, String)], body: Data)
        /// Declares `declaredLength`, sends `body`, then closes the connection.
        case cut(body: Data, declaredLength: Int)
        /// Sends the body (fresh for 60 s) in `chunk`-byte pieces, `delay` apart.
        case trickle(body: Data, chunk: Int, delay: TimeAmount)
        /// Declares `declaredLength` (nil: chunked), sends `head` then zeros in `chunk`-byte pieces `delay` apart
        /// until the declared length is sent or the client closes the connection (see `stream(_:)`).
        case stream(head: Data, declaredLength: Int?, chunk: Int, delay: TimeAmount)
        /// A chunked `.stream` held open until a request for `path` arrives (the body then ends), or until
        /// `atMost` bytes are sent: a download that lasts until another one has started.
        case streamUntilRequest(for: String, head: Data, atMost: Int, chunk: Int, delay: TimeAmount)
        /// Sends the body (fresh for 60 s) but its last byte, which waits for `release(name)`: a download that lasts
        /// exactly until the test says, however slow the machine. After 30,000 ticks of 20 ms (at least 10 min) it
        /// ends anyway (a hang guard: 120 s could pass on a loaded machine before a test released it).
        case held(body: Data, until: String)
    }

    /// What the origin saw, in the order it saw it: requests arriving and `.stream` bodies ending.
    package enum Event: Equatable, Sendable {
        case request(String)
        case bodyEnded(String)
    }

    /// What a `.stream` reply sent: body bytes the socket accepted, and whether the client closed the
    /// connection before the declared end.
    package struct StreamRecord: Sendable {
        package var bytesSent = 0
        package var closedEarly = false
        package var finished = false
    }

    package typealias Route = @Sendable (Request) -> Reply

    /// Routes and the request log, shared by the server and its connection handlers.
    package final class Table: Sendable {
        package let state = Locked<(routes: [String: Route], log: [Request], events: [Event])>(([:], [], []))
        package let streams = Locked<[String: StreamRecord]>([:])
        /// Tests waiting for a `.stream` reply to end (`streamEnded`): its path, the byte bound, and the waiter.
        private let streamWaiters = Locked<[(path: String, bytes: Int, continuation: CheckedContinuation<StreamRecord?, Never>)]>([])

        /// Changes `path`'s stream record, then resumes the tests waiting for what it now shows.
        package func updateStream(_ path: String, _ change: (inout StreamRecord) -> Void) {
            let record = streams.withLock { streams -> StreamRecord? in
                guard streams[path] != nil else { return nil }
                change(&streams[path]!)
                return streams[path]
            }
            guard let record else { return }
            resumeWaiters(for: path, record)
        }

        /// Waits for `path`'s stream to be closed by the client or ended, or to have sent `bytes`.
        package func streamEnded(_ path: String, orAfter bytes: Int) async -> StreamRecord? {
            await withCheckedContinuation { continuation in
                let current = streams.withLock { streams -> StreamRecord? in
                    // Under the records' lock, so an update cannot slip between this look and the registration.
                    if let record = streams[path], Self.ended(record, orAfter: bytes) { return record }
                    streamWaiters.withLock { $0.append((path, bytes, continuation)) }
                    return nil
                }
                if let current { continuation.resume(returning: current) }
            }
        }

        private func resumeWaiters(for path: String, _ record: StreamRecord) {
            let ready = streams.withLock { _ in
                streamWaiters.withLock { waiters in
                    let ready = waiters.filter { $0.path == path && Self.ended(record, orAfter: $0.bytes) }
                    waiters.removeAll { $0.path == path && Self.ended(record, orAfter: $0.bytes) }
                    return ready.map(\.continuation)
                }
            }
            for continuation in ready { continuation.resume(returning: record) }
        }

        private static func ended(_ record: StreamRecord, orAfter bytes: Int) -> Bool {
            record.closedEarly || record.finished || record.bytesSent >= bytes
        }
        package let connections = Locked(0)
        package let released = Locked<Set<String>>([])

        package func reply(to request: Request) -> Reply {
            state.withLock { state in
                state.log.append(request)
                state.events.append(.request(request.path))
                guard let route = state.routes[request.path] else {
                    return .respond(status: 404, headers: [("Content-Type", "text/plain")], body: Data("not found".utf8))
                }
                return route(request)
            }
        }
    }

    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let channel: Channel
    private let table = Table()
    package let port: Int
    package let scheme: String
    package let host: String

    /// With `tls`, it serves https with the test certificate for 127.0.0.1 (Fixtures/tls, signed by `caFile`).
    /// Another loopback `host` (127.0.0.2) makes that certificate name the wrong host.
    package init(tls: Bool = false, host: String = "127.0.0.1") throws {
        let table = self.table
        let context = try tls ? NIOSSLContext(configuration: .makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(Self.tlsFile("server.pem")).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: Self.tlsFile("server-key.pem"), format: .pem)))) : nil
        channel = try ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                table.connections.withLock { $0 += 1 }
                return channel.eventLoop.makeCompletedFuture {
                    if let context { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context)) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Handler(table: table))
                }
            }
            .bind(host: host, port: 0).wait()
        port = channel.localAddress!.port!
        scheme = tls ? "https" : "http"
        self.host = host
    }

    package static func tlsFile(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ThumbcacheKitTests/Fixtures/tls/\(name)").path
    }

    /// The certificate authority that signed the https server's certificate.
    package static var caFile: String { tlsFile("ca.pem") }

    package func shutdown() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }

    package func url(_ path: String) -> String { "\(scheme)://\(host):\(port)\(path)" }

    package func route(_ path: String, _ route: @escaping Route) {
        table.state.withLock { $0.routes[path] = route }
    }

    package func requests(_ path: String) -> [Request] {
        table.state.withLock { $0.log.filter { $0.path == path } }
    }

    package func requestCount(_ path: String) -> Int { requests(path).count }

    /// Every request, whatever its path.
    package var totalRequests: Int { table.state.withLock { $0.log.count } }

    /// The request targets the server got, as sent, in order.
    package var requestedPaths: [String] { table.state.withLock { $0.log.map(\.path) } }

    /// TCP connections accepted, whether or not a request followed.
    package var connectionCount: Int { table.connections.withLock { $0 } }

    package func stream(_ path: String) -> StreamRecord? { table.streams.withLock { $0[path] } }

    /// `path`'s `.stream` record once the client has closed the connection or the body has ended, or once `bytes`
    /// were sent: awaited on the origin's own events, with no clock (a stream that no client closes ends by bytes).
    package func streamEnded(_ path: String, orAfter bytes: Int) async -> StreamRecord? {
        await table.streamEnded(path, orAfter: bytes)
    }

    /// Lets the `.held` bodies waiting for `name` end.
    package func release(_ name: String) { table.released.withLock { _ = $0.insert(name) } }

    package var events: [Event] { table.state.withLock { $0.events } }

    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let table: Table
        private var head: HTTPRequestHead?

        init(table: Table) { self.table = table }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): self.head = head
            case .body: break
            case .end:
                guard let head else { return }
                var headers: [String: String] = [:]
                for (name, value) in head.headers { headers[name.lowercased()] = value }
                let reply = table.reply(to: Request(path: head.uri, headers: headers))
                send(reply, path: head.uri, context: context)
            }
        }

        private func send(_ reply: Reply, path: String, context: ChannelHandlerContext) {
            switch reply {
            case .respond(let status, let headers, let body):
                var head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status))
                for (name, value) in headers { head.headers.add(name: name, value: value) }
                if status != 304 { head.headers.replaceOrAdd(name: "Content-Length", value: String(body.count)) }
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                if !body.isEmpty && status != 304 {
                    context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
                }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            case .cut(let body, let declared):
                var head = HTTPResponseHead(version: .http1_1, status: .ok)
                head.headers.add(name: "Content-Type", value: "image/jpeg")
                head.headers.add(name: "Content-Length", value: String(declared))
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
                context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))))
                    .whenComplete { _ in bound.value.close(promise: nil) }
            case .trickle(let body, let chunk, let delay):
                var head = HTTPResponseHead(version: .http1_1, status: .ok)
                head.headers.add(name: "Content-Type", value: "image/jpeg")
                head.headers.add(name: "Content-Length", value: String(body.count))
                head.headers.add(name: "Cache-Control", value: "max-age=60")
                context.writeAndFlush(wrapOutboundOut(.head(head)), promise: nil)
                trickle(body[...], chunk: chunk, delay: delay, context: context)
            case .stream(let body, let declared, let chunk, let delay):
                startStream(path: path, head: body, declaredLength: declared, left: declared ?? .max, chunk: chunk, delay: delay,
                            context: context)
            case .held(let body, let name):
                var head = HTTPResponseHead(version: .http1_1, status: .ok)
                head.headers.add(name: "Content-Type", value: "image/jpeg")
                head.headers.add(name: "Content-Length", value: String(body.count))
                head.headers.add(name: "Cache-Control", value: "max-age=60")
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body.dropLast())))), promise: nil)
                hold(body.suffix(1), until: name, ticksLeft: 30_000, context: context)
            case .streamUntilRequest(let awaited, let body, let atMost, let chunk, let delay):
                startStream(path: path, head: body, declaredLength: nil, left: atMost, chunk: chunk, delay: delay,
                            endsOnRequestFor: awaited, context: context)
            }
        }

        private func startStream(path: String, head body: Data, declaredLength: Int?, left: Int, chunk: Int, delay: TimeAmount,
                                 endsOnRequestFor awaited: String? = nil, context: ChannelHandlerContext) {
            var head = HTTPResponseHead(version: .http1_1, status: .ok)
            head.headers.add(name: "Content-Type", value: "image/jpeg")
            if let declaredLength { head.headers.add(name: "Content-Length", value: String(declaredLength)) }
            context.writeAndFlush(wrapOutboundOut(.head(head)), promise: nil)
            table.streams.withLock { $0[path] = StreamRecord() }
            stream(path: path, next: body, left: left, chunk: chunk, delay: delay, endsOnRequestFor: awaited, context: context)
        }

        private func stream(path: String, next: Data, left: Int, chunk: Int, delay: TimeAmount, endsOnRequestFor awaited: String? = nil,
                            context: ChannelHandlerContext) {
            guard context.channel.isActive else {
                table.updateStream(path) { $0.closedEarly = true }
                return
            }
            let awaitedArrived = awaited.map { awaited in self.table.state.withLock { $0.log.contains { $0.path == awaited } } } ?? false
            guard left > 0, !awaitedArrived else {
                table.updateStream(path) { $0.finished = true }
                table.state.withLock { $0.events.append(.bodyEnded(path)) }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                return
            }
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            // A client that stops reading fills the socket: wait rather than buffer without bound.
            guard context.channel.isWritable else {
                context.eventLoop.scheduleTask(in: delay) {
                    let (handler, context) = bound.value
                    handler.stream(path: path, next: next, left: left, chunk: chunk, delay: delay, endsOnRequestFor: awaited,
                                   context: context)
                }
                return
            }
            let piece = next.isEmpty ? Data(count: min(chunk, left)) : next.prefix(left)
            let table = self.table
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: piece))))).whenSuccess {
                table.updateStream(path) { $0.bytesSent += piece.count }
            }
            // After the last piece the body ends at once: a client that has it all may close before another delay.
            guard left > piece.count else {
                return stream(path: path, next: Data(), left: 0, chunk: chunk, delay: delay, context: context)
            }
            context.eventLoop.scheduleTask(in: delay) {
                let (handler, context) = bound.value
                handler.stream(path: path, next: Data(), left: left - piece.count, chunk: chunk, delay: delay,
                               endsOnRequestFor: awaited, context: context)
            }
        }

        private func hold(_ last: Data, until name: String, ticksLeft: Int, context: ChannelHandlerContext) {
            guard context.channel.isActive else { return }
            if ticksLeft == 0 || table.released.withLock({ $0.contains(name) }) {
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: last)))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                return
            }
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: .milliseconds(20)) {
                let (handler, context) = bound.value
                handler.hold(last, until: name, ticksLeft: ticksLeft - 1, context: context)
            }
        }

        private func trickle(_ rest: Data.SubSequence, chunk: Int, delay: TimeAmount, context: ChannelHandlerContext) {
            guard context.channel.isActive else { return }
            guard !rest.isEmpty else {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                return
            }
            let piece = rest.prefix(chunk)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: piece)))), promise: nil)
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: delay) {
                let (handler, context) = bound.value
                handler.trickle(rest.dropFirst(chunk), chunk: chunk, delay: delay, context: context)
            }
        }
    }
}
