import ArgumentParser
import Foundation
import ThumbcacheKit

/// `thumbcache stats`: entries, bytes, hits and misses of the cache directory.
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Show cache size, hits and misses.",
        discussion: "Exit codes: 0 success; 8 cache directory error; 64 usage; 74 standard output could not be written.")

    @OptionGroup var cache: CacheOptions

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let pipeline = try cache.openReadOnly()
        let (stats, entries, bytes, maxBytes) = pipeline.statistics()
        await pipeline.close()
        if json {
            try Console.print(Console.json([
                "entries": entries, "bytes": bytes, "maxBytes": maxBytes, "hits": stats.hits, "misses": stats.misses,
                "memoryHits": stats.memoryHits, "diskHits": stats.diskHits, "revalidated": stats.revalidated,
                "staleServed": stats.staleServed,
                "failures": stats.failures, "bytesDownloaded": stats.bytesDownloaded,
            ]))
            return
        }
        let requests = stats.hits + stats.misses
        let ratio = requests == 0 ? "-" : String(format: "%.1f%%", 100 * Double(stats.hits) / Double(requests))
        try Console.print("""
            entries:     \(entries)
            bytes:       \(ByteCount(bytes: bytes).approximateDescription) of \(ByteCount(bytes: maxBytes).approximateDescription)
            hits:        \(stats.hits) (disk \(stats.diskHits), revalidated \(stats.revalidated), memory \(stats.memoryHits), stale on origin error \(stats.staleServed))
            misses:      \(stats.misses)
            hit ratio:   \(ratio)
            failures:    \(stats.failures)
            downloaded:  \(stats.bytesDownloaded) bytes
            """)
    }
}
