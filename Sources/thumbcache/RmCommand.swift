import ArgumentParser
import ThumbcacheKit

/// `thumbcache rm URL…`: removes sources' entries (original and every thumbnail), as `serve`'s purge route
/// does online (URLCache's `removeCachedResponse(for:)`).
struct RmCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Remove the cached original and thumbnails of each URL.",
        discussion: "Prints 'removed URL' or 'not cached URL' on stderr for each. Exit codes: 0 done; 8 cache directory error; 64 usage (a bad URL)."
    )

    @Argument(help: "http(s) URLs, file:// URLs or paths, as given to get.")
    var urls: [String]

    @OptionGroup var cache: CacheOptions

    func run() async throws {
        let sources = try urls.map { url throws(PipelineError) in try ImageSource(url) }
        let pipeline = try cache.openPipeline()
        do {
            for source in sources {
                let removed = try pipeline.remove(source: source)
                Console.error("\(removed ? "removed" : "not cached") \(source.normalized)")
            }
        } catch {
            await pipeline.close()
            throw error
        }
        await pipeline.close()
    }
}
