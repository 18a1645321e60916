import ArgumentParser
import ThumbcacheKit

/// `thumbcache clear`: empties the cache directory and resets the counters.
struct ClearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "clear", abstract: "Remove every cached entry.")

    @OptionGroup var cache: CacheOptions

    func run() async throws {
        let pipeline = try cache.openPipeline()
        do { try pipeline.clear() } catch {
            await pipeline.close()
            throw error
        }
        await pipeline.close()
        Console.error("cache cleared")
    }
}
