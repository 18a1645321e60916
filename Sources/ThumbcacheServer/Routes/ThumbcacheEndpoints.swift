import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import ImageDecode
import NIOCore
import Synchronization
import ThumbcacheKit

/// What `thumbcache serve` answers, and the one place that decides it: the thumbnail check (`ThumbnailChecks`), the
/// pipeline, the responder, health, metrics and purge. Its routes go on any Hummingbird router (`register(on:)`);
/// its connections are `ThumbcacheHTTP1Channel`s, which also answer memory hits from the bytes (`memoryHitAnswer`).
/// An app embeds it with both: `register(on: router)` and `server: .thumbcacheHTTP1(endpoints:)`.
///
/// - `GET|HEAD /<signature>/<size>/<fit>/<source>[.<format>]`: a thumbnail (see `ThumbnailPath`); without a
///   format, one preferred from `Accept` (see `AcceptNegotiation`), sent with `Vary: Accept`.
/// - `GET|HEAD /<signature>/<option>/…/<source>`: imgproxy's processing URLs (see `ProcessingPath`), told apart
///   from the short grammar by `PathGrammar`.
/// - `GET|HEAD /healthz`: `ok`, or 503 while stopping. `GET|HEAD /metrics`: Prometheus text (unless moved to its own
///   port).
/// - `POST /admin/purge/<source>` and `POST /admin/purge-all` with `Authorization: Bearer <token>`, only with an
///   admin token.
/// - `/demo…`, only with `demo` (see `DemoPage`).
package final class ThumbcacheEndpoints: Sendable {
    package let configuration: ServeConfiguration
    package let pipeline: ThumbnailPipeline
    package let limiter: RenderLimiter
    package let metrics: ServerMetrics
    let signer: URLSigner
    private let responder: ThumbnailResponder
    private let stopping = Atomic(false)
    let checks: ThumbnailChecks
    let accessLog: AccessLog
    /// The connections of `thumbcache serve`'s main server, against `--max-connections` (`ThumbcacheService`).
    let connections: OpenConnections

    /// `pipeline` must have been opened with `limiter` as its render gate (as `ThumbcacheService.init` opens it).
    package init(configuration: ServeConfiguration, pipeline: ThumbnailPipeline, limiter: RenderLimiter, metrics: ServerMetrics) {
        self.configuration = configuration
        self.pipeline = pipeline
        self.limiter = limiter
        self.metrics = metrics
        signer = URLSigner(pairs: configuration.signingKeys, signatureSize: configuration.signatureSize,
                           trusted: configuration.trustedSignatures)
        responder = ThumbnailResponder(minTTL: configuration.minTTL, maxTTL: configuration.maxTTL)
        checks = ThumbnailChecks(signer: signer, maxSize: configuration.maxSize, presets: configuration.presets,
                                 onlyPresets: configuration.onlyPresets, rules: configuration.checkRules)
        accessLog = AccessLog(format: configuration.logFormat, metrics: metrics)
        connections = OpenConnections(maximum: configuration.maxConnections)
    }

    /// From now on, health checks and new thumbnail requests get 503 (in-flight ones finish).
    package func beginStopping() { stopping.store(true, ordering: .releasing) }
    package var isStopping: Bool { stopping.load(ordering: .acquiring) }

    package func register<Context: RequestContext>(on router: Router<Context>, metricsRoute: Bool = true) {
        router.add(middleware: AccessLogMiddleware<Context>(log: accessLog))
        Self.getAndHead(router, "healthz") { self.health() }
        if metricsRoute { Self.getAndHead(router, "metrics") { self.metricsAnswer() } }
        if configuration.adminToken != nil {
            router.post("admin/purge/:source") { request, context in
                (self.refusal(request) ?? self.purge(encodedSource: context.parameters.get("source") ?? "")).response
            }
            router.post("admin/purge-all") { request, _ in
                (self.refusal(request) ?? self.purgeAll()).response
            }
        }
        if configuration.demo { DemoPage(endpoints: self).register(on: router) }
        router.get("**") { request, _ in await self.thumbnailAnswer(request).response }
        router.head("**") { request, _ in await self.thumbnailAnswer(request).forHEAD().response }
    }

    /// GET and HEAD of a fixed path (Hummingbird answers a HEAD without its own route 404).
    private static func getAndHead<Context: RequestContext>(_ router: Router<Context>, _ path: RouterPath,
                                                            _ answer: @escaping @Sendable () -> ServerAnswer) {
        router.get(path) { _, _ in answer().response }
        router.head(path) { _, _ in answer().forHEAD().response }
    }

    /// The routes of a separate metrics port.
    package func registerMetrics<Context: RequestContext>(on router: Router<Context>) {
        Self.getAndHead(router, "metrics") { self.metricsAnswer() }
        Self.getAndHead(router, "healthz") { self.health() }
    }

    // MARK: - Handlers

    func health() -> ServerAnswer {
        let stopping = isStopping
        return .body(stopping ? .serviceUnavailable : .ok, [.contentType: "text/plain", .cacheControl: "no-store"],
                     stopping ? "stopping\n" : "ok\n")
    }

    func metricsAnswer() -> ServerAnswer {
        .body(.ok, [.contentType: "text/plain; version=0.0.4", .cacheControl: "no-store"],
              metrics.scrape(pipeline: pipeline, limiter: limiter))
    }

    /// The router's answer to a thumbnail request: checked (`checks`), then from memory, else from the pipeline
    /// within the request deadline.
    func thumbnailAnswer(_ request: Request) async -> ServerAnswer {
        let started = ContinuousClock.now
        do throws(ServeError) {
            guard !isStopping else { throw ServeError.unavailable("stopping", "the server is shutting down") }
            let check = try checks.check(target: request.head.path ?? "", headers: request.headers)
            let result: ThumbnailResult
            if let hit = pipeline.memoryHit(for: check.source, check.rendition, format: check.format, accepted: check.accepted) {
                metrics.memoryHitAnswered(fromBytes: false)
                result = hit
            } else if let hit = pipeline.diskHit(for: check.source, check.rendition, format: check.format,
                                                 accepted: check.accepted) {
                // A fresh stored thumbnail is a read from the page cache, far shorter than any deadline: answered
                // before the deadline's two tasks and timer (and the pipeline's coalescers) are set up.
                result = hit
            } else {
                result = try await renderWithinDeadline(check)
            }
            metrics.thumbnail(result)
            return responder.answer(for: result, requestHeaders: request.headers, variation: check.variation,
                                    disposition: check.disposition, elapsed: started.duration(to: .now))
        } catch {
            if let reason = error.refusalReason { metrics.refused(reason) }
            return error.answer
        }
    }

    /// The answer to a request the wire read (`WireHitHandler`) when its thumbnail is in memory and the router
    /// would answer it from there; nil for anything else (a miss, a path that does not check out, stopping,
    /// `Connection: close`), which then goes to the router. `serverName`: the connection's `Server` field.
    func memoryHitAnswer(method: HTTPRequest.Method, path: String, headers: HTTPFields, serverName: String?,
                         allocator: ByteBufferAllocator = ByteBufferAllocator()) -> WireAnswer? {
        let started = ContinuousClock.now
        // `Connection: close` is the router's to honour (the connection closes after its answer); so is a list
        // too long to read whole (`HeaderList`), which might name it further on.
        guard !isStopping, headers[.connection].map({ HeaderList.containsToken($0, "close") != false }) != true,
              let check = try? checks.check(target: path, headers: headers),
              // A disk hit whose bytes are in the page cache is answered here too: reading them does not block
              // (`read: .residentOnly`); one that would wait for the disk goes to the router, off the event loop.
              let result = pipeline.memoryHit(for: check.source, check.rendition, format: check.format, accepted: check.accepted)
                ?? pipeline.diskHit(for: check.source, check.rendition, format: check.format, accepted: check.accepted,
                                    read: .residentOnly)
        else { return nil }
        metrics.thumbnail(result)
        let (second, date) = AnswerHead.date.current
        if headers[.ifNoneMatch] == nil, headers[.ifModifiedSince] == nil,
           let facts = PreparedHeads.Facts(result, variation: check.variation, serverName: serverName),
           let prepared = check.heads.head(for: facts, second: second, make: {
               preparedHead(result, facts: facts, disposition: check.disposition, second: second, date: date, allocator: allocator)
           }) {
            let timing = responder.serverTiming(result, elapsed: started.duration(to: .now))
            var head = allocator.buffer(capacity: prepared.beforeTiming.readableBytes + prepared.afterTiming.readableBytes
                                        + timing.utf8.count + 17)
            head.writeImmutableBuffer(prepared.beforeTiming)
            AnswerHead.write(HTTPField(name: ThumbnailResponder.serverTimingField, value: timing), into: &head)
            head.writeImmutableBuffer(prepared.afterTiming)
            return WireAnswer(head: head, body: method == .head ? nil : allocator.buffer(bytes: result.data), status: 200, contentLength: prepared.contentLength,
                              served: result.servedFrom.rawValue, loggedPath: check.loggedPath)
        }
        let answer = responder.answer(for: result, requestHeaders: headers, variation: check.variation,
                                      disposition: check.disposition, elapsed: started.duration(to: .now), second: second)
        var head = allocator.buffer(capacity: 512)
        AnswerHead.write(status: answer.status, fields: answer.headers, serverName: serverName, date: date, into: &head)
        return WireAnswer(head: head, body: method == .head ? nil : answer.body, status: answer.status.code,
                          contentLength: answer.contentLength, served: result.servedFrom.rawValue, loggedPath: check.loggedPath)
    }

    /// The head of the unconditional answer to `result` this second, cut around `Server-Timing`.
    private func preparedHead(_ result: ThumbnailResult, facts: PreparedHeads.Facts, disposition: PreparedDisposition?,
                              second: Int, date: String, allocator: ByteBufferAllocator) -> PreparedHeads.Head? {
        let answer = responder.answer(for: result, requestHeaders: [:], variation: facts.variation,
                                      disposition: disposition, elapsed: .zero, second: second)
        var (before, after) = (allocator.buffer(capacity: 384), allocator.buffer(capacity: 128))
        guard AnswerHead.write(status: answer.status, fields: answer.headers, serverName: facts.serverName, date: date,
                               splitAt: ThumbnailResponder.serverTimingField, before: &before, after: &after)
        else { return nil }
        return PreparedHeads.Head(facts: facts, second: second, beforeTiming: before, afterTiming: after,
                                  contentLength: answer.contentLength)
    }

    /// Counts and logs an answer `WireHitHandler` wrote (`started`: when its head was read).
    func answeredFromBytes(_ answer: WireAnswer, method: HTTPRequest.Method, started: ContinuousClock.Instant) {
        if answer.served == ServedFrom.memory.rawValue { metrics.memoryHitAnswered(fromBytes: true) }
        accessLog.record(method: method.rawValue, loggedPath: answer.loggedPath, status: answer.status, bytes: answer.contentLength,
                         served: answer.served, duration: started.duration(to: .now))
    }

    /// The thumbnail of a checked request that missed the memory cache and was no disk hit, within the request
    /// deadline. A request that times out stops waiting; the work goes on when other requests share it (and fills
    /// the cache), else it is cancelled (`Coalescer`): the download closes its connection, a render still queued
    /// leaves the queue.
    func renderWithinDeadline(_ check: ThumbnailCheck) async throws(ServeError) -> ThumbnailResult {
        let pipeline = self.pipeline
        let timeout = configuration.timeout
        do {
            return try await withThrowingTaskGroup(of: ThumbnailResult?.self) { group in
                group.addTask {
                    try await pipeline.result(for: check.source, check.rendition, format: check.format, accepted: check.accepted,
                                              lookingIn: [])
                }
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

    /// Only http and https sources: `file:` and every other scheme is refused (403) before anything is read.
    /// A source with credentials in it is refused (400): a shared cache would store the protected image under
    /// the URL without them and give it to anyone who asks. (`thumbcache sign` asks the same question, so it
    /// never prints a path serve would refuse.)
    package static func source(_ text: String) throws(ServeError) -> ImageSource {
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

    /// The 401 for an admin request without the admin token, else nil.
    func refusal(_ request: Request) -> ServerAnswer? {
        let expected = Data((configuration.adminToken ?? "").utf8)
        let given = Data((Self.bearerToken(request.headers[.authorization]) ?? "").utf8)
        // Compared as MACs of both, so the comparison takes the same time wherever they differ.
        let key = SymmetricKey(size: .bits256)
        guard configuration.adminToken != nil,
              HMAC<SHA256>.isValidAuthenticationCode(HMAC<SHA256>.authenticationCode(for: expected, using: key),
                                                     authenticating: given, using: key) else {
            return ServeError(status: .unauthorized, code: "unauthorized", message: "purge needs Authorization: Bearer <admin token>").answer
        }
        return nil
    }

    /// The token of `Authorization: Bearer <token>`, or nil. The scheme is case-insensitive (RFC 9110 §11.1), and
    /// one or more spaces may follow it.
    static func bearerToken(_ header: String?) -> Substring? {
        guard let header, let space = header.utf8.firstIndex(of: 32),
              header[..<space].lowercased() == "bearer" else { return nil }
        let token = HeaderList.trimmed(header[space...])
        return token.isEmpty ? nil : token
    }

    /// Empties the disk and memory caches; says what it removed.
    func purgeAll() -> ServerAnswer {
        do {
            let removed = try pipeline.removeAll()
            return .body(.ok, [.contentType: "application/json", .cacheControl: "no-store"],
                         ServeError.json(["entries": removed.entries, "bytes": removed.bytes,
                                          "memoryThumbnails": removed.memoryThumbnails]))
        } catch {
            return ServeError(error).answer
        }
    }

    /// Removes the source's entry (original and every thumbnail) from disk and memory.
    func purge(encodedSource encoded: String) -> ServerAnswer {
        do throws(ServeError) {
            guard let data = Base64URL.decode(encoded[...]), let text = String(data: data, encoding: .utf8) else {
                throw ServeError.badRequest("the source must be a URL encoded as base64url without padding")
            }
            let source = try checks.source(text)
            let removed: Bool
            do { removed = try pipeline.remove(source: source) } catch { throw ServeError(error) }
            return .body(.ok, [.contentType: "application/json", .cacheControl: "no-store"],
                         ServeError.json(["source": source.normalized, "removed": removed]))
        } catch {
            return error.answer
        }
    }
}
