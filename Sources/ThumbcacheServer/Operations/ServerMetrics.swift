import Foundation
import Metrics
import Prometheus
import ThumbcacheKit

/// The service's metrics, through swift-metrics into a Prometheus registry of its own (no global bootstrap,
/// so several servers can run in one process, as in the tests). Gauges are sampled when scraped.
package final class ServerMetrics: Sendable {
    package let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let fetchTimer: Metrics.Timer
    private let renderTimer: Metrics.Timer
    private let hitTimer: Metrics.Timer
    private let missTimer: Metrics.Timer
    private let entries: Metrics.Gauge
    private let bytes: Metrics.Gauge
    private let memoryHitRatio: Metrics.Gauge
    private let rendersInFlight: Metrics.Gauge
    private let rendersQueued: Metrics.Gauge
    /// Renders stopped before their end because nobody waited any more (the pipeline counts them).
    private let rendersCancelled: Metrics.Gauge
    /// Thumbnail answers, and those from the memory cache: the hit ratio.
    private let thumbnailCounts = Locked((all: 0, memory: 0))
    private let requestCounters = Locked<[RequestKey: Metrics.Counter]>([:])
    /// Memory hits by who answered them: from the request's bytes (`WireHitHandler`) or by the router.
    private let hitsFromBytes: Prometheus.Counter
    private let hitsByRouter: Prometheus.Counter
    /// Pauses in reading a connection whose unsent answers passed the high watermark (its client not reading them,
    /// or one answer that large), by the answer bytes unsent then (`ConnectionState.writabilityChanged`).
    private let readPauses: Prometheus.ValueHistogram
    /// Connections the deadline closed, by why (`ConnectionState.CloseReason`).
    private let deadlineCloses: [ConnectionState.CloseReason: Prometheus.Counter]
    static let readPauseBuckets: [Double] = [16 * 1024, 64 * 1024, 128 * 1024, 1024 * 1024, 16 * 1024 * 1024]

    package init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(250), .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25),
            .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
            .milliseconds(2500), .seconds(5), .seconds(10),
        ]
        self.factory = factory
        fetchTimer = Timer(label: "thumbcache_origin_fetch_duration_seconds", factory: factory)
        renderTimer = Timer(label: "thumbcache_render_duration_seconds", factory: factory)
        hitTimer = Timer(label: "thumbcache_request_duration_seconds", dimensions: [("kind", "hit")], factory: factory)
        missTimer = Timer(label: "thumbcache_request_duration_seconds", dimensions: [("kind", "miss")], factory: factory)
        entries = Metrics.Gauge(label: "thumbcache_cache_entries", factory: factory)
        bytes = Metrics.Gauge(label: "thumbcache_cache_bytes", factory: factory)
        memoryHitRatio = Metrics.Gauge(label: "thumbcache_memory_cache_hit_ratio", factory: factory)
        rendersInFlight = Metrics.Gauge(label: "thumbcache_renders_in_flight", factory: factory)
        rendersQueued = Metrics.Gauge(label: "thumbcache_renders_queued", factory: factory)
        rendersCancelled = Metrics.Gauge(label: "thumbcache_renders_cancelled", factory: factory)
        let help = "Thumbnails answered from the memory cache, by who answered: from the request bytes, or the router"
        hitsFromBytes = registry.makeCounter(name: "thumbcache_memory_hit_answers_total", labels: [("by", "bytes")], help: help)
        hitsByRouter = registry.makeCounter(name: "thumbcache_memory_hit_answers_total", labels: [("by", "router")], help: help)
        readPauses = registry.makeValueHistogram(name: "thumbcache_read_pause_unsent_bytes", buckets: Self.readPauseBuckets,
                                                 help: "Pauses in reading a connection whose unsent answers passed 64 KiB (a client not reading them, or one answer that large), by the answer bytes unsent then")
        let closesHelp = "Connections closed by the deadline: no request head in a whole deadline with nothing unsent (no_head), or answer bytes unsent and none taken in a whole deadline (not_reading)"
        let registry = self.registry
        deadlineCloses = Dictionary(uniqueKeysWithValues: ConnectionState.CloseReason.allCases.map {
            ($0, registry.makeCounter(name: "thumbcache_deadline_closes_total", labels: [("reason", $0.rawValue)], help: closesHelp))
        })
    }

    /// The deadline closed a connection, for `reason`.
    func closedByDeadline(_ reason: ConnectionState.CloseReason) {
        deadlineCloses[reason]?.increment()
    }

    /// A connection stopped reading requests: its client was not reading the answers, `unsentAnswerBytes` of them.
    func readPaused(unsentAnswerBytes: Int) {
        readPauses.record(Double(unsentAnswerBytes))
    }

    /// A memory hit was answered, from the bytes or by the router.
    func memoryHitAnswered(fromBytes: Bool) {
        (fromBytes ? hitsFromBytes : hitsByRouter).increment()
    }

    /// One answered request. `served` is how a thumbnail was obtained ("-" for other routes and errors).
    func request(status: Int, served: String?, duration: Duration, isThumbnail: Bool) {
        requestCounter(status: status, served: served ?? "none").increment()
        guard isThumbnail else { return }
        let hit = served == ServedFrom.memory.rawValue || served == ServedFrom.disk.rawValue
        (hit ? hitTimer : missTimer).recordNanoseconds(duration.nanoseconds)
        if status < 400 {
            thumbnailCounts.withLock { counts in
                counts.all += 1
                if served == ServedFrom.memory.rawValue { counts.memory += 1 }
            }
        }
    }

    /// One counter per (status, served), made once: the registry's lookup by label and dimensions on every
    /// request cost more than the increment.
    private func requestCounter(status: Int, served: String) -> Metrics.Counter {
        requestCounters.withLock { counters in
            let key = RequestKey(status: status, served: served)
            if let counter = counters[key] { return counter }
            let counter = Metrics.Counter(label: "thumbcache_requests_total",
                                          dimensions: [("status", String(status)), ("served", served)], factory: factory)
            counters[key] = counter
            return counter
        }
    }

    private struct RequestKey: Hashable, Sendable {
        var status: Int
        var served: String
    }

    func thumbnail(_ result: ThumbnailResult) {
        if let fetch = result.fetchDuration, result.servedFrom == .network || result.servedFrom == .revalidated {
            fetchTimer.recordNanoseconds(fetch.nanoseconds)
        }
        if let render = result.renderDuration, result.rendered { renderTimer.recordNanoseconds(render.nanoseconds) }
    }

    func refused(_ reason: String) {
        Metrics.Counter(label: "thumbcache_refusals_total", dimensions: [("reason", reason)], factory: factory).increment()
    }

    /// The Prometheus text, with the gauges sampled now.
    func scrape(pipeline: ThumbnailPipeline, limiter: RenderLimiter) -> String {
        let statistics = pipeline.statistics()
        entries.record(statistics.entries)
        bytes.record(statistics.bytes)
        let counts = thumbnailCounts.withLock { $0 }
        memoryHitRatio.record(counts.all == 0 ? 0 : Double(counts.memory) / Double(counts.all))
        let load = limiter.load
        rendersInFlight.record(load.running)
        rendersQueued.record(load.queued)
        rendersCancelled.record(pipeline.rendersCancelled)
        return registry.emitToString()
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Milliseconds with three decimals ("12.345"), as the access log and Server-Timing write them; by hand
    /// because `String(format:)` was a measurable part of a memory hit's cost.
    var millisecondsText: String {
        // Digits written into one small string: the three-string version was a visible part of a hit's logging.
        let micros = max(0, (nanoseconds + 500) / 1000)
        var text = String(micros / 1000)
        text.reserveCapacity(text.utf8.count + 4)
        let fraction = Int(micros % 1000)
        text.append(".")
        text.append(Character(Unicode.Scalar(UInt8(ascii: "0") + UInt8(fraction / 100))))
        text.append(Character(Unicode.Scalar(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))))
        text.append(Character(Unicode.Scalar(UInt8(ascii: "0") + UInt8(fraction % 10))))
        return text
    }
}
