import ArgumentParser
import Foundation
import ThumbcacheKit

/// Options shared by every command that uses the cache directory.
struct CacheOptions: ParsableArguments {
    @Option(help: "Cache directory (default: $XDG_CACHE_HOME/thumbcache, else ~/.cache/thumbcache).")
    var cacheDir: String?

    @Option(help: "Bound of the disk cache, e.g. 512MB, 2GB (least recently used entries are evicted).")
    var maxDiskSize: ByteCount = ByteCount(bytes: 512 << 20)

    func configuration() -> PipelineConfiguration {
        var configuration = PipelineConfiguration(
            cacheDirectory: cacheDir.map { URL(fileURLWithPath: $0) } ?? PipelineConfiguration.defaultCacheDirectory)
        configuration.maxDiskSize = maxDiskSize.bytes
        return configuration
    }

    /// Opens the pipeline, saying so on stderr if another thumbcache process holds the directory.
    func openPipeline(configure: (inout PipelineConfiguration) -> Void = { _ in }) throws -> ThumbnailPipeline {
        var configuration = configuration()
        configure(&configuration)
        do {
            return try ThumbnailPipeline(configuration: configuration) { message in
                Console.error(message)
            }
        } catch {
            throw Console.fail(error)
        }
    }
}

/// A byte size on the command line: `1048576`, `512KB`, `512MB`, `2GB` (powers of 1024; `KiB` etc. also accepted).
struct ByteCount: ExpressibleByArgument, Sendable {
    var bytes: Int64

    init(bytes: Int64) { self.bytes = bytes }

    init?(argument: String) {
        let text = argument.uppercased().replacingOccurrences(of: "IB", with: "B")
        let units: [(String, Int64)] = [("TB", 1 << 40), ("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10), ("B", 1)]
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            guard let value = Double(text.dropLast(suffix.count)), value > 0 else { return nil }
            bytes = Int64(value * Double(factor))
            return
        }
        guard let value = Int64(text), value > 0 else { return nil }
        bytes = value
    }
}

/// Writing to stderr, and turning pipeline errors into their documented exit codes.
enum Console {
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("thumbcache: \(message)\n".utf8))
    }

    /// Prints the error as one line and returns the exit code to throw.
    static func fail(_ error: any Error) -> ExitCode {
        if let error = error as? PipelineError {
            self.error(error.description)
            return ExitCode(error.exitCode)
        }
        self.error("\(error)")
        return ExitCode.failure
    }

    static func json(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
