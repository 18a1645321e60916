import ArgumentParser
import Foundation
import ThumbcacheKit

/// `thumbcache info URL`: what the cache holds for a URL, without fetching anything.
struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info", abstract: "Show what is cached for URL (nothing is fetched).")

    @Argument(help: "http(s) URL, file:// URL or path.")
    var url: String

    @OptionGroup var cache: CacheOptions

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let source: ImageSource
        do { source = try ImageSource(url) } catch { throw Console.fail(error) }
        let pipeline = try cache.openPipeline()
        let info: EntryInfo?
        do { info = try pipeline.info(for: source) } catch {
            await pipeline.close()
            throw Console.fail(error)
        }
        await pipeline.close()
        guard let info else {
            Console.error("\(source) is not cached")
            throw ExitCode(7)
        }
        let metadata = info.metadata
        let freshness = info.freshness.isFresh
            ? "fresh for \(Int(info.freshness.remaining)) s (\(info.freshness.source))"
            : "stale by \(Int(-info.freshness.remaining)) s (\(info.freshness.source)); the next get revalidates"
        if json {
            print(Console.json([
                "url": metadata.url, "key": info.cacheKey, "headers": metadata.headers,
                "fetchedAt": metadata.responseTime, "fresh": info.freshness.isFresh,
                "freshnessRemaining": info.freshness.remaining, "format": metadata.original.format,
                "width": metadata.original.width, "height": metadata.original.height,
                "originalBytes": metadata.original.bytes, "variants": metadata.variants, "storedBytes": info.storedBytes,
            ]))
            return
        }
        print("""
            url:       \(metadata.url)
            key:       \(info.cacheKey)
            original:  \(metadata.original.format) \(metadata.original.width)x\(metadata.original.height), \(metadata.original.bytes) bytes
            variants:  \(metadata.variants.isEmpty ? "none" : metadata.variants.map(String.init).joined(separator: ", "))
            stored:    \(info.storedBytes) bytes
            fetched:   \(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: metadata.responseTime)))
            freshness: \(freshness)
            """)
        for name in metadata.headers.keys.sorted() { print("header:    \(name): \(metadata.headers[name]!)") }
    }
}
