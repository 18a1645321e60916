import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import ThumbcacheKit
import UnixSignals

/// `thumbcache serve`: the routes on a Hummingbird server (plus a metrics server with `metricsPort`) in a
/// `ServiceGroup`. On SIGTERM or SIGINT, health checks and new thumbnail requests turn 503 (with
/// `Connection: close`) while the server still accepts for `drainTimeout`, so a load balancer sees the drain
/// rather than refused connections; then it stops accepting and finishes the requests in flight within
/// `shutdownTimeout`, the render workers stop and the cache closes.
package struct ThumbcacheService: Sendable {
    package let endpoints: ThumbcacheEndpoints
    private let logger: Logger
    /// The `Server` header.
    static let serverName = "thumbcache"

    /// Opens the cache directory with the render limiter as the pipeline's gate and the server's source policy,
    /// holding the directory lock until the pipeline closes (a `thumbcache get` on it waits meanwhile).
    package init(configuration: ServeConfiguration, pipeline pipelineConfiguration: PipelineConfiguration,
                logger: Logger = Logger(label: "thumbcache.serve"),
                onLockWait: @Sendable (String) -> Void = { _ in }) throws(PipelineError) {
        let limiter = RenderLimiter(workers: configuration.workers, queue: configuration.queue)
        var pipelineConfiguration = pipelineConfiguration
        pipelineConfiguration.renderGate = limiter
        pipelineConfiguration.memoryPressure = configuration.memoryPressureMonitor
        pipelineConfiguration.sourcePolicy = configuration.sourcePolicy
        pipelineConfiguration.cacheRole = .shared(ignoringSetCookie: configuration.ignoreSetCookie)
        // `--max-size` bounds a processed image too, after dpr, zoom, enlarge, extend and padding.
        pipelineConfiguration.maxResultSide = configuration.maxSize
        // Every download the limiter admits has a connection of its own, whatever the others on its origin do.
        pipelineConfiguration.fetchLimits.maxConnectionsPerHost = max(pipelineConfiguration.fetchLimits.maxConnectionsPerHost,
                                                          configuration.workers + configuration.queue)
        // A long-running server owns its directory: one lock for its lifetime, not one per request.
        pipelineConfiguration.lockMode = .holdForLifetime
        let pipeline = try ThumbnailPipeline(configuration: pipelineConfiguration, onLockWait: onLockWait)
        endpoints = ThumbcacheEndpoints(configuration: configuration, pipeline: pipeline, limiter: limiter, metrics: ServerMetrics())
        self.logger = logger
    }

    /// Serves until a signal in `gracefulShutdownSignals` (or cancellation). `onListening` gets each bound port
    /// (the main one first).
    package func run(gracefulShutdownSignals: [UnixSignal] = [.sigterm, .sigint],
                    onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let configuration = endpoints.configuration
        let router = Router()
        endpoints.register(on: router, metricsRoute: configuration.metricsPort == nil)
        var channel = ThumbcacheHTTP1Channel.Configuration()
        // One deadline for both limits: the connection's state sees every request, the wire's answers too.
        channel.headDeadline = min(configuration.headerTimeout, configuration.idleTimeout)
        channel.serverName = Self.serverName
        channel.answersHitsFromBytes = configuration.answersHitsFromBytes
        let connections = endpoints.connections
        let app = Application(
            router: router,
            server: .thumbcacheHTTP1(endpoints: endpoints, configuration: channel, connections: connections),
            // No server name here: the channel stamps every answer (`AnswerHead`).
            configuration: .init(address: .hostname(ServeConfiguration.bindAddress(configuration.host), port: configuration.port),
                                 serverName: nil, availableConnectionsDelegate: OpenConnections.Delegate(connections: connections)),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) }, logger: logger)
        var services: [any Service] = [PipelineCloser(endpoints: endpoints)]
        // Before the main server in the group, so stopped after it: its /healthz says 503 through the drain.
        if let metricsPort = configuration.metricsPort {
            let metricsRouter = Router()
            endpoints.registerMetrics(on: metricsRouter)
            services.append(Application(
                router: metricsRouter, configuration: .init(address: .hostname(ServeConfiguration.bindAddress(configuration.host), port: metricsPort)),
                onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) }, logger: logger))
        }
        services.append(Draining(server: app, endpoints: endpoints, drain: configuration.drainTimeout, logger: logger))
        var groupConfiguration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) }, gracefulShutdownSignals: gracefulShutdownSignals, logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = configuration.drainTimeout + configuration.shutdownTimeout
        try await ServiceGroup(configuration: groupConfiguration).run()
    }
}

/// The main server, told of the shutdown `drain` after the group is: meanwhile it still accepts, and the routes
/// answer 503 (`beginStopping`). The server runs in a group of its own, in a detached task: a group run inside
/// another hears the outer one's shutdown through task-locals, and would stop accepting at once.
private struct Draining: Service {
    let server: any Service
    let endpoints: ThumbcacheEndpoints
    let drain: Duration
    let logger: Logger

    func run() async throws {
        let group = ServiceGroup(configuration: .init(services: [.init(service: server)], logger: logger))
        enum Ended { case server, drained }
        try await withThrowingTaskGroup(of: Ended.self) { tasks in
            tasks.addTask {
                let server = Task.detached { try await group.run() }
                try await withTaskCancellationHandler { try await server.value } onCancel: { server.cancel() }
                return .server
            }
            tasks.addTask {
                try await gracefulShutdown()  // throws when cancelled
                endpoints.beginStopping()
                try? await Task.sleep(for: drain)
                await group.triggerGracefulShutdown()
                return .drained
            }
            // Drained: the server finishes its requests. A server that ended by itself: no shutdown to wait for.
            if try await tasks.next() == .drained { _ = try await tasks.next() }
            tasks.cancelAll()
        }
    }
}

/// First in the group, so the last to stop: once the servers have finished their requests, the render
/// workers stop and the cache closes (counters saved, directory lock released).
private struct PipelineCloser: Service {
    let endpoints: ThumbcacheEndpoints

    func run() async throws {
        try? await gracefulShutdown()
        await endpoints.limiter.shutdown()
        await endpoints.pipeline.close()
    }
}
