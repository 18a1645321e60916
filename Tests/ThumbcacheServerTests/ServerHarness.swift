import AsyncHTTPClient
import Foundation
import Testing
import Hummingbird
import ImageDecode
import Logging
import NIOCore
import NIOHTTP1
import ThumbcacheKit
@testable import ThumbcacheServer

/// `thumbcache serve` in this process on 127.0.0.1 (port chosen by the system), on a fresh cache directory,
/// and an HTTP client for it.
final class ServerHarness: Sendable {
    struct Answer: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let body: Data

        func header(_ name: String) -> String? { headers.first(name: name) }
        var json: [String: String] {
            (try? JSONSerialization.jsonObject(with: body) as? [String: String]) ?? [:]
        }
        /// The body as a JSON object of any values.
        var jsonObject: [String: Any] {
            (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:]
        }
        var imageSize: (width: Int, height: Int)? {
            (try? ImageDecoder.probe(body)).map { ($0.orientedWidth, $0.orientedHeight) }
        }
    }

    let service: ThumbcacheService
    let directory: URL
    let port: Int
    /// The separate metrics port, when the configuration has one.
    let metricsPort: Int?
    private let task: Task<Void, any Error>

    init(directory: URL? = nil, configure: (inout ServeConfiguration) -> Void = { _ in },
         pipeline: (inout PipelineConfiguration) -> Void = { _ in }) async throws {
        self.directory = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-serve-\(UUID().uuidString)")
        var configuration = ServeConfiguration()
        configuration.port = 0
        configuration.allowLoopbackSources = true
        // Tests of the deadline set their own; elsewhere a render may wait long for CPU while other suites
        // run in parallel (a loaded machine turned first requests into 504s at the 10 s default).
        configuration.timeout = .seconds(60)
        // The machine's memory pressure must not evict what a test asserts on (MemoryPressureTests drive it).
        configuration.watchesMemoryPressure = false
        configure(&configuration)
        var pipelineConfiguration = PipelineConfiguration(cacheDirectory: self.directory)
        pipeline(&pipelineConfiguration)
        var logger = Logger(label: "thumbcache.test")
        logger.logLevel = .critical  // stopping by cancellation logs errors that are expected here
        service = try ThumbcacheService(configuration: configuration, pipeline: pipelineConfiguration, logger: logger)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let service = self.service
        task = Task { try await service.run(gracefulShutdownSignals: []) { continuation.yield($0) } }
        var iterator = ports.makeAsyncIterator()
        port = await iterator.next() ?? 0
        metricsPort = configuration.metricsPort == nil ? nil : await iterator.next()
    }

    var endpoints: ThumbcacheEndpoints { service.endpoints }

    /// Memory hits answered from the request bytes, and by the router, as the metrics count them.
    var hitsFromBytes: Int { metric("thumbcache_memory_hit_answers_total{by=\"bytes\"}") }
    var hitsByRouter: Int { metric("thumbcache_memory_hit_answers_total{by=\"router\"}") }

    /// Pauses in reading a connection whose client did not read its answers (`ConnectionState.readRequested`),
    /// and how many of them held at most `unsentBytes` (one of `ServerMetrics.readPauseBuckets`) unsent.
    var readPauses: Int { metric("thumbcache_read_pause_unsent_bytes_count") }
    func readPauses(holdingAtMost unsentBytes: Double) -> Int {
        metric("thumbcache_read_pause_unsent_bytes_bucket{le=\"\(unsentBytes)\"}")
    }

    /// A counter's value from the Prometheus text, 0 when it is not there.
    func metric(_ series: String) -> Int {
        endpoints.metrics.registry.emitToString().split(separator: "\n")
            .first { $0.hasPrefix(series + " ") }
            .flatMap { Int($0.dropFirst(series.count + 1)) } ?? 0
    }

    /// A server whose memory cache holds the 64 px thumbnail at `path` (one request made it), beside its origin;
    /// both stopped afterwards.
    static func withCachedThumbnail(configure: (inout ServeConfiguration) -> Void = { _ in },
                                    _ body: (ServerHarness, String) async throws -> Void) async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness(configure: configure)
        let path = server.path(origin.url("/a.jpg"), size: 64)
        #expect(try await server.request(path).status == 200)
        try await body(server, path)
        await server.stop()
        await origin.stop()
    }

    /// Stops the server and closes the cache (the directory lock is free afterwards).
    func stop(removingDirectory: Bool = true) async {
        task.cancel()
        _ = try? await task.value
        if removingDirectory { try? FileManager.default.removeItem(at: directory) }
    }

    /// The path of a thumbnail, signed as the server expects.
    func path(_ source: String, size: Int, fit: FitMode = .contain, format: ImageFormat? = nil) -> String {
        var path = ThumbnailPath(signature: "", size: size, fit: fit, source: source, format: format)
        path.signature = endpoints.signer.signature(for: path.signedPart)
        return path.path
    }

    func request(_ path: String, method: HTTPMethod = .GET, headers: [(String, String)] = []) async throws -> Answer {
        try await Self.request("http://127.0.0.1:\(port)\(path)", method: method, headers: headers)
    }

    /// The tests' client: room for 64 connections to the server (the shared client's 8 would make a test that
    /// holds eight requests open wait for its ninth in the client, not in the server).
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        // The client lets an idle connection go well before the server's idle timeout (30 s) could close it: a
        // pooled connection the server closes just as the client reuses it is a reset, and a busy machine once
        // stretched a test's idle gap past 30 s (AsyncHTTPClient keeps idle connections 60 s by default).
        configuration.connectionPool.idleTimeout = .seconds(5)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    static func request(_ url: String, method: HTTPMethod = .GET, headers: [(String, String)] = []) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await client.execute(request, timeout: .seconds(600))  // a hang guard, never a verdict
        let body = try await response.body.collect(upTo: 64 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers, body: Data(buffer: body))
    }
}
