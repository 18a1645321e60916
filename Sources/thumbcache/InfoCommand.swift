import ArgumentParser
import Foundation
import ThumbcacheKit

/// `thumbcache info URL`: what the cache holds for a URL, without fetching anything.
struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info", abstract: "Show what is cached for URL (nothing is fetched).",
        discussion: """
            Exit codes: 0 cached; 7 not cached; 8 cache directory error; 64 usage; 74 standard output could \
            not be written. With --json, a failure is the object {"error", "message", "exitCode"} on stdout.
            """)

    @Argument(help: "http(s) URL, file:// URL or path.")
    var url: String

    @OptionGroup var cache: CacheOptions

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        do { try await showInfo() } catch { throw Console.fail(error, json: json ? .standardOutput : nil) }
    }

    private func showInfo() async throws {
        let source = try ImageSource(url)
        let pipeline = try cache.openReadOnly()
        let info: EntryInfo?
        do { info = try pipeline.info(for: source) } catch {
            await pipeline.close()
            throw error
        }
        await pipeline.close()
        guard let info else { throw Console.Failure(description: "\(source) is not cached", exitCode: 7) }
        let metadata = info.metadata
        let freshness = info.freshness.summary + (info.freshness.isFresh ? "" : "; the next get revalidates")
        if json {
            try Console.print(Console.json([
                "url": metadata.url, "key": info.cacheKey, "headers": metadata.headers,
                "fetchedAt": metadata.responseTime, "fresh": info.freshness.isFresh,
                "freshnessRemaining": info.freshness.remaining, "format": metadata.original.format,
                "width": metadata.original.width, "height": metadata.original.height,
                "originalBytes": metadata.original.bytes, "originalDigest": metadata.original.digest,
                "thumbnailSizes": metadata.thumbnailSizes,
                "thumbnails": Dictionary(uniqueKeysWithValues: metadata.thumbnails.map { (String($0.size), $0.parts.map(\.format)) }),
                "storedBytes": info.storedBytes,
                "processed": info.processed.map(\.dictionary),
            ]))
            return
        }
        var text = """
            url:       \(metadata.url)
            key:       \(info.cacheKey)
            original:  \(metadata.original.format) \(metadata.original.width)x\(metadata.original.height), \(metadata.original.bytes) bytes, sha256 \(metadata.original.digest)
            ladder:    \(metadata.thumbnails.isEmpty ? "none" : metadata.thumbnails.map { "\($0.size) (\($0.parts.map(\.format).joined(separator: " ")))" }.joined(separator: ", "))
            stored:    \(info.storedBytes) bytes
            fetched:   \(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: metadata.responseTime)))
            freshness: \(freshness)
            """
        for processed in info.processed {
            text += "\nprocessed: \(processed.options.isEmpty ? "(no options)" : processed.options) as \(processed.asked): "
                + "\(processed.format) \(processed.width)x\(processed.height), \(processed.bytes) bytes"
        }
        for (name, value) in metadata.headers.sorted(by: { $0.key < $1.key }) { text += "\nheader:    \(name): \(value)" }
        try Console.print(text)
    }
}
