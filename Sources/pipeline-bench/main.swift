// In-process latency of ThumbnailPipeline memory hits (the target: p99 under 50 µs).
// Usage: pipeline-bench IMAGE [ITERATIONS]
import Foundation
import ThumbcacheKit

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: pipeline-bench IMAGE [ITERATIONS]\n".utf8))
    exit(2)
}
let iterations = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-bench-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: directory) }

let pipeline = try ThumbnailPipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
let source = try ImageSource(arguments[1])
// Files are revalidated on every disk access; a memory hit within its freshness skips even that.
let first = try await pipeline.thumbnail(for: source, size: 256)
// Measured off the main actor, where a server's request handlers run: no executor hop per call.
let samples = try await Task.detached {
    var samples: [Double] = []
    samples.reserveCapacity(iterations)
    let clock = ContinuousClock()
    for _ in 0..<iterations {
        let start = clock.now
        let hit = try await pipeline.thumbnail(for: source, size: 256, policy: .offline)
        let elapsed = clock.now - start
        precondition(hit.servedFrom == .memory && hit.data.count == first.data.count)
        samples.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
    }
    return samples
}.value
let sorted = samples.sorted()
let percentile = { (p: Double) in sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
print(String(format: "memory-hit iterations %d p50_us %.2f p99_us %.2f p999_us %.2f max_us %.2f",
             iterations, percentile(0.5), percentile(0.99), percentile(0.999), sorted.last!))
await pipeline.close()
