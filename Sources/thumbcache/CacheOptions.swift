import ArgumentParser
import Foundation
import ThumbcacheKit

/// Options shared by every command that uses the cache directory.
struct CacheOptions: ParsableArguments {
    @Option(help: "Cache directory (default: $XDG_CACHE_HOME/thumbcache, else ~/.cache/thumbcache).")
    var cacheDir: String?

    static let defaultMaxDiskSize = ByteCount(bytes: 512 << 20)

    @Option(help: ArgumentHelp(
        "Bound of the disk cache, e.g. 2GB or 512MiB; least recently used entries are evicted (default: \(defaultMaxDiskSize)).",
        discussion: ByteCount.help, valueName: "size"),
        transform: { try ByteCount(parsing: $0) })
    var maxDiskSize: ByteCount = defaultMaxDiskSize

    @Option(help: ArgumentHelp(
        "How much of --max-disk-size processed images (imgproxy options) may use, evicted on their own; the originals and thumbnails use the rest. 0 keeps them in memory only and deletes those an earlier run stored (default: a quarter).",
        valueName: "size"),
        // 0 is a setting here (no variants on disk), not a size too small to hold anything.
        transform: { $0 == "0" ? ByteCount(bytes: 0) : try ByteCount(parsing: $0) })
    var variantDiskSize: ByteCount?

    @Option(name: .customLong("cache-key-ignore-query"), help: ArgumentHelp(EnvironmentFallback.help(
        "Query parameter left out of the cache key, so presigned URLs of one object share one entry (repeatable; * matches any run, e.g. X-Amz-*). It is still sent to the origin.",
        flag: "cache-key-ignore-query"), valueName: "name"))
    var cacheKeyIgnoreQuery: [String] = []

    func validate() throws {
        // An empty path would mean the current directory: never what was meant, and not ours to fill.
        if cacheDir?.isEmpty == true { throw ValidationError("--cache-dir must not be empty") }
        if let variantDiskSize, variantDiskSize.bytes > maxDiskSize.bytes {
            throw ValidationError("--variant-disk-size (\(variantDiskSize)) must not exceed --max-disk-size (\(maxDiskSize)): it is a part of it")
        }
    }

    func configuration() throws -> PipelineConfiguration {
        var configuration = PipelineConfiguration(
            cacheDirectory: cacheDir.map { URL(fileURLWithPath: $0) } ?? PipelineConfiguration.defaultCacheDirectory)
        configuration.maxDiskSize = maxDiskSize.bytes
        configuration.maxVariantDiskSize = variantDiskSize?.bytes
        let ignored = try EnvironmentFallback.list(cacheKeyIgnoreQuery, flag: "cache-key-ignore-query")
        if let bad = ignored.first(where: { $0.value.isEmpty || $0.value.contains("&") || $0.value.contains("=") }) {
            throw bad.failure("--cache-key-ignore-query takes a query parameter name (with * as a wildcard), not \"\(bad.value)\"")
        }
        configuration.cacheKeyRule = CacheKeyRule(ignoredQueryParameters: ignored.map(\.value))
        return configuration
    }

    /// Opens the cache for `info` and `stats`: creates, locks, writes and deletes nothing.
    func openReadOnly() throws -> ThumbnailPipeline {
        try openPipeline { $0.readOnly = true }
    }

    /// Opens the pipeline, saying so on stderr if another thumbcache process holds the directory.
    func openPipeline(configure: (inout PipelineConfiguration) -> Void = { _ in }) throws -> ThumbnailPipeline {
        var configuration = try configuration()
        configure(&configuration)
        return try ThumbnailPipeline(configuration: configuration) { message in
            Console.error(message)
        }
    }
}
