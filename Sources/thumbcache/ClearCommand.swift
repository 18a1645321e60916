import ArgumentParser
import ThumbcacheKit

/// `thumbcache clear`: empties the cache directory and resets the counters.
struct ClearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear", abstract: "Remove every cached entry.",
        discussion: """
            A directory a running 'thumbcache serve' uses is locked for as long as it runs: clear then says so at \
            once and exits 8 rather than wait. Purge through the server instead: \
            curl -X POST -H 'Authorization: Bearer <admin token>' http://HOST:PORT/admin/purge-all \
            (serve started with --admin-token).
            """)

    @OptionGroup var cache: CacheOptions

    func run() async throws {
        let pipeline: ThumbnailPipeline
        do {
            // Not waiting for the lock: a server holds it as long as it runs, so waiting would only look like a hang.
            pipeline = try cache.openPipeline { $0.lockTimeout = .zero }
        } catch let error as PipelineError {
            switch error {
            case .cache(.locked), .cache(.lockTimeout): break
            default: throw error
            }
            throw Console.Failure(description: Self.heldMessage(directory: try cache.configuration().cacheDirectory.path),
                                  exitCode: error.exitCode)
        }
        do { try pipeline.clear() } catch {
            await pipeline.close()
            throw error
        }
        await pipeline.close()
        Console.error("cache cleared")
    }

    static func heldMessage(directory: String) -> String {
        """
        the cache directory \(directory) is in use by another thumbcache process: a running 'thumbcache serve' \
        holds it as long as it runs (a get or warm only for a moment: then retry). To empty a running server's \
        cache, purge through it: curl -X POST -H 'Authorization: Bearer <admin token>' http://HOST:PORT/admin/purge-all \
        (serve needs --admin-token); or stop the server and run clear again.
        """
    }
}
