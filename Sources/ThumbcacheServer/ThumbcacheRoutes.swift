import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import ImageDecode
import NIOCore
import Synchronization
import ThumbcacheKit

/// The service's routes on any Hummingbird router: an existing app mounts them with `register(on:)`.
///
/// - `GET|HEAD /<signature>/<size>/<fit>/<source>[.<format>]`: a thumbnail (see `ThumbnailPath`); without a
///   format, one negotiated from `Accept` (see `AcceptNegotiation`), sent with `Vary: Accept`.
/// - `GET|HEAD /healthz`: `ok`, or 503 while stopping. `GET|HEAD /metrics`: Prometheus text (unless moved to its own
///   port).
/// - `POST /admin/purge/<source>` with `Authorization: Bearer <token>`, only with an admin token.
/// - `/demo…`, only with `demo` (see `DemoPage`).
public final class ThumbcacheRoutes: Sendable {
    public let configuration: ServeConfiguration
    public let pipeline: ThumbnailPipeline
    public let limiter: RenderLimiter
    public let metrics: ServerMetrics
    let signer: URLSigner
    private let responder: ThumbnailResponder
    private let stopping = Locked(false)
    private let parsedSources = MemoryCache<String, ImageSource>(limits: .init(totalCost: 4 << 20, count: 10_000))
    /// Paths `memoryHitAnswer` has parsed and found signed, with their sources: a hot thumbnail's path is
    /// checked once, not on every hit (parsing, the HMAC and the source lookup were a third of its own cost).
    private let checkedPaths = MemoryCache<String, CheckedPath>(limits: .init(totalCost: 8 << 20, count: 10_000))

    private struct CheckedPath: Sendable {
        let path: ThumbnailPath
        let source: ImageSource
    }
    let accessLog: AccessLog
    /// The connections of `thumbcache serve`'s main server, against `--max-connections` (`ThumbcacheService`).
    let connections: OpenConnections
    /// How many answers `MemoryHitFastPath` sent (for tests; an atomic, not a lock, on the hit path).
    let fastPathAnswers = Atomic<Int>(0)
    /// How many of those `MemoryHitWirePath` sent, from the request's bytes (for tests).
    let wirePathAnswers = Atomic<Int>(0)

    /// `pipeline` must have been opened with `limiter` as its render gate (`ThumbcacheService.openPipeline`).
    public init(configuration: ServeConfiguration, pipeline: ThumbnailPipeline, limiter: RenderLimiter, metrics: ServerMetrics) {
        self.configuration = configuration
        self.pipeline = pipeline
        self.limiter = limiter
        self.metrics = metrics
        signer = URLSigner(key: configuration.key, salt: configuration.salt)
        responder = ThumbnailResponder(minTTL: configuration.minTTL, maxTTL: configuration.maxTTL)
        accessLog = AccessLog(format: configuration.logFormat, metrics: metrics)
        connections = OpenConnections(maximum: configuration.maxConnections)
    }

    /// From now on, health checks and new thumbnail requests get 503 (in-flight ones finish).
    public func beginStopping() { stopping.withLock { $0 = true } }
    public var isStopping: Bool { stopping.withLock { $0 } }

    public func register<Context: RequestContext>(on router: Router<Context>, metricsRoute: Bool = true) {
        router.add(middleware: AccessLogMiddleware<Context>(log: accessLog))
        Self.getAndHead(router, "healthz") { self.health() }
        if metricsRoute { Self.getAndHead(router, "metrics") { self.metricsResponse() } }
        if configuration.adminToken != nil {
            router.post("admin/purge/:source") { request, context in
                self.purge(request, source: context.parameters.get("source") ?? "")
            }
        }
        if configuration.demo { DemoPage(routes: self).register(on: router) }
        router.get("**") { request, context in
            await self.thumbnail(request, segments: context.parameters.getCatchAll())
        }
        // HEAD of a thumbnail: its GET's answer without the body.
        router.head("**") { request, context in
            Self.headAnswer(await self.thumbnail(request, segments: context.parameters.getCatchAll()))
        }
    }

    /// GET and HEAD of a fixed path (Hummingbird answers a HEAD without its own route 404).
    private static func getAndHead<Context: RequestContext>(_ router: Router<Context>, _ path: RouterPath,
                                                            _ response: @escaping @Sendable () -> Response) {
        router.get(path) { _, _ in response() }
        router.head(path) { _, _ in headAnswer(response()) }
    }

    /// A GET's answer as HEAD's: the same status and headers, with the length the body would have had.
    static func headAnswer(_ response: Response) -> Response {
        var headers = response.headers
        if headers[.contentLength] == nil, let length = response.body.contentLength { headers[.contentLength] = String(length) }
        return Response(status: response.status, headers: headers)
    }

    /// The routes of a separate metrics port.
    public func registerMetrics<Context: RequestContext>(on router: Router<Context>) {
        Self.getAndHead(router, "metrics") { self.metricsResponse() }
        Self.getAndHead(router, "healthz") { self.health() }
    }

    // MARK: - Handlers

    func health() -> Response {
        let stopping = isStopping
        return Response(status: stopping ? .serviceUnavailable : .ok,
                        headers: [.contentType: "text/plain", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(string: stopping ? "stopping\n" : "ok\n")))
    }

    func metricsResponse() -> Response {
        Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4", .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(string: metrics.scrape(pipeline: pipeline, limiter: limiter))))
    }

    func thumbnail(_ request: Request, segments: [Substring]) async -> Response {
        let started = ContinuousClock.now
        do throws(ServeError) {
            guard !isStopping else { throw ServeError.unavailable("stopping", "the server is shutting down") }
            let path = try ThumbnailPath(segments: segments, maxSize: configuration.maxSize)
            guard signer.accepts(path.signature, for: path.signedPart) else {
                throw ServeError.forbidden("bad_signature", signer.isSigning
                    ? "the signature does not match this path and the server's key"
                    : "signing is off: the signature segment must be \(URLSigner.unsigned)")
            }
            // Without an extension the client's Accept picks the format; the pipeline's keys hold the chosen
            // format (or the default), never the header, so differently spelled Accepts share one render.
            let format = path.format ?? AcceptNegotiation(request.headers[.accept]).format
            let result = try await thumbnail(path, format: format)
            metrics.thumbnail(result)
            return responder.response(for: result, request: request, negotiated: path.format == nil,
                                      elapsed: started.duration(to: .now))
        } catch {
            if let reason = error.refusalReason { metrics.refused(reason) }
            return error.response
        }
    }

    /// The channel handler that answers memory hits on the event loop (`MemoryHitFastPath`, which puts a
    /// `MemoryHitWirePath` in front of the HTTP/1 codec for the common requests): an app that mounts
    /// these routes adds one per connection through its HTTP server's `additionalChannelHandlers` and sets that
    /// server's `idleTimeout` to nil: Hummingbird's idle timer does not see these answers and would close busy
    /// connections. Without the handler every request takes the router, with the same answers.
    public func memoryHitHandler(serverName: String) -> any RemovableChannelHandler {
        MemoryHitFastPath(routes: self, serverName: serverName)
    }

    /// The answer to a thumbnail request whose thumbnail is in the memory cache, or nil for anything else (a
    /// miss, another route, a path or signature that does not check out, stopping): `MemoryHitFastPath` sends
    /// it from the event loop, and everything else goes through the router, which answers the same.
    func memoryHitAnswer(method: HTTPRequest.Method, path: String, headers: HTTPFields) -> ThumbnailAnswer? {
        let started = ContinuousClock.now
        // `Connection: close` is Hummingbird's to honour (it closes after the answer); so is a list too long to
        // read whole (`HeaderList`), which might name it further on.
        guard method == .get || method == .head, !isStopping,
              headers[.connection].map({ HeaderList.containsToken($0, "close") != false }) != true else { return nil }
        guard let checked = checkedPath(path) else { return nil }
        let (parsed, source) = (checked.path, checked.source)
        let format = parsed.format ?? AcceptNegotiation(headers[.accept]).format
        guard let result = pipeline.memoryHit(for: source, size: parsed.size, fit: parsed.fit, format: format) else { return nil }
        metrics.thumbnail(result)
        var answer = responder.answer(for: result, requestHeaders: headers, negotiated: parsed.format == nil,
                                      elapsed: started.duration(to: .now))
        if method == .head { answer.body = nil }
        fastPathAnswers.add(1, ordering: .relaxed)
        return answer
    }

    /// The path parsed, its signature accepted and its source allowed, or nil.
    private func checkedPath(_ path: String) -> CheckedPath? {
        if let known = checkedPaths.value(forKey: path) { return known }
        guard path.utf8.first == UInt8(ascii: "/") else { return nil }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count == 4, let parsed = try? ThumbnailPath(segments: segments, maxSize: configuration.maxSize),
              signer.accepts(parsed.signature, for: parsed.signedPart),
              let source = try? parsedSource(parsed.source) else { return nil }
        let checked = CheckedPath(path: parsed, source: source)
        checkedPaths.set(checked, forKey: path, cost: path.utf8.count * 2)
        return checked
    }

    /// The thumbnail of a checked path, within the request deadline. A request that times out stops waiting;
    /// the work goes on when other requests share it (and fills the cache), else it is cancelled (`Coalescer`):
    /// the download closes its connection, a render still queued for a worker leaves the queue.
    func thumbnail(_ path: ThumbnailPath, format: ImageFormat?) async throws(ServeError) -> ThumbnailResult {
        let source = try parsedSource(path.source)
        let pipeline = self.pipeline
        if let hit = pipeline.memoryHit(for: source, size: path.size, fit: path.fit, format: format) { return hit }
        let timeout = configuration.timeout
        do {
            return try await withThrowingTaskGroup(of: ThumbnailResult?.self) { group in
                group.addTask { try await pipeline.thumbnail(for: source, size: path.size, fit: path.fit, format: format) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let result = first else { throw ServeError.timedOut(after: timeout) }
                return result
            }
        } catch let error as ServeError {
            throw error
        } catch let error as PipelineError {
            throw ServeError(error, revealingRefusals: configuration.debugRefusals)
        } catch {
            throw ServeError(status: .internalServerError, code: "internal", message: "\(error)")
        }
    }

    /// `source(_:)` remembered for recently requested sources: parsing and normalising a URL (Foundation's
    /// URLComponents) was the largest part of a memory hit's own cost. Refused sources are not remembered.
    private func parsedSource(_ text: String) throws(ServeError) -> ImageSource {
        if let known = parsedSources.value(forKey: text) { return known }
        let source = try Self.source(text)
        parsedSources.set(source, forKey: text, cost: text.utf8.count)
        return source
    }

    /// Only http and https sources: `file:` and every other scheme is refused (403) before anything is read.
    /// A source with credentials in it is refused (400): a shared cache would store the protected image under
    /// the URL without them and give it to anyone who asks. (`thumbcache sign` asks the same question, so it
    /// never prints a path serve would refuse.)
    public static func source(_ text: String) throws(ServeError) -> ImageSource {
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw .forbidden("source_refused", "only http and https sources are served")
        }
        let source: ImageSource
        do { source = try ImageSource(text) } catch { throw ServeError(error) }
        guard !source.hasUserInfo else {
            throw ServeError(status: .badRequest, code: "source_credentials",
                             message: "a source with credentials (user:password@) is refused: this server is a shared cache, "
                                 + "and the image would be served to every client without them; let the origin allow the "
                                 + "server by address or a secret path instead")
        }
        return source
    }

    func purge(_ request: Request, source encoded: String) -> Response {
        let expected = Data((configuration.adminToken ?? "").utf8)
        let given = Data((Self.bearerToken(request.headers[.authorization]) ?? "").utf8)
        // Compared as MACs of both, so the comparison takes the same time wherever they differ.
        let key = SymmetricKey(size: .bits256)
        guard configuration.adminToken != nil,
              HMAC<SHA256>.isValidAuthenticationCode(HMAC<SHA256>.authenticationCode(for: expected, using: key),
                                                     authenticating: given, using: key) else {
            return ServeError(status: .unauthorized, code: "unauthorized", message: "purge needs Authorization: Bearer <admin token>").response
        }
        return purge(encodedSource: encoded)
    }

    /// The token of `Authorization: Bearer <token>`, or nil. The scheme is case-insensitive (RFC 9110 §11.1), and
    /// one or more spaces may follow it.
    static func bearerToken(_ header: String?) -> Substring? {
        guard let header, let space = header.utf8.firstIndex(of: 32),
              header[..<space].lowercased() == "bearer" else { return nil }
        let token = HeaderList.trimmed(header[space...])
        return token.isEmpty ? nil : token
    }

    /// Removes the source's entry (original and every thumbnail) from disk and memory.
    func purge(encodedSource encoded: String) -> Response {
        do throws(ServeError) {
            guard let data = Base64URL.decode(encoded[...]), let text = String(data: data, encoding: .utf8) else {
                throw ServeError.badRequest("the source must be a URL encoded as base64url without padding")
            }
            let source = try Self.source(text)
            let removed: Bool
            do { removed = try pipeline.remove(source: source) } catch { throw ServeError(error) }
            let body = ServeError.json(["source": source.normalized, "removed": removed])
            return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(string: body)))
        } catch {
            return error.response
        }
    }
}
