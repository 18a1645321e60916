import ArgumentParser
import Foundation
import ImageDecode
import ThumbcacheKit
import ThumbcacheServer

/// `thumbcache warm`: fills the cache for a list of URLs ahead of traffic.
struct WarmCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "warm",
        abstract: "Cache thumbnails for many URLs (one per line, from FILE or standard input).",
        discussion: """
            Blank lines and lines starting with # are skipped; repeated URLs are fetched once. Each URL goes \
            through the same pipeline as `get` (fresh entries are not fetched again, stale ones are \
            revalidated), making every size in --sizes. At most --concurrency URLs are in flight.

            Ctrl-C (SIGINT) or SIGTERM stops cleanly: in-flight work is abandoned, the cache stays \
            consistent, and a re-run skips what is done.

            Decodes in flight share --total-decode-memory: each reserves its estimate (see --max-decode-memory) \
            before decoding and waits while the others hold too much.

            With --server BASE_URL, a running `thumbcache serve` (or the balancer in front of several nodes) is \
            warmed instead of a local cache: each URL and size is requested as BASE_URL/<signature>/<size>/contain/<source>, \
            signed with --key and --salt (or THUMBCACHE_KEY and THUMBCACHE_SALT; without a key, 'unsafe'), so \
            each source is stored on the node that owns it. A request answered with another status than 200 \
            counts as failed with its status; "fetched" counts sources that a node downloaded, "already fresh" \
            those it served from its memory or disk. The cache options do not apply.

            Exit codes: 0 every URL warmed; 1 some URLs failed (counted in the report, the first \
            \(WarmReport.failureSampleSize) listed; all of them in the --json report); 8 cache directory error; \
            64 usage; 74 the --json report could not be written; 130 / 143 interrupted by SIGINT / SIGTERM.
            """
    )

    @Argument(help: "File with one URL per line, or - for standard input.")
    var file: String = "-"

    @Option(help: "Comma-separated thumbnail sizes to make for every URL, each 1-\(ThumbnailRequest.maxSize).")
    var sizes: String = "64,256"

    static let concurrencyRange = 1...256

    @Option(help: "URLs in flight at once (downloads and decodes), \(concurrencyRange.lowerBound)-\(concurrencyRange.upperBound).")
    var concurrency: Int = 8

    @Option(help: "Also write the report as JSON to this file, every failure included (written as the run goes).")
    var json: String?

    @Flag(help: "No progress output (the final report is still printed).")
    var quiet = false

    static let progressIntervalRange = 0.01...86_400.0
    static let progressIntervalText = String(format: "%g and %g", progressIntervalRange.lowerBound, progressIntervalRange.upperBound)

    @Option(help: "Seconds between progress lines when stderr is not a terminal, between \(progressIntervalText).")
    var progressInterval: Double = 5

    @Option(help: ArgumentHelp("Warm a running thumbcache serve (or its balancer) at this http(s) base URL instead of the local cache.",
                               valueName: "base-url"))
    var server: String?

    @OptionGroup var signing: SigningOptions

    @OptionGroup var cache: CacheOptions

    @OptionGroup var fetch: FetchOptions

    @OptionGroup var decode: DecodeOptions

    @OptionGroup var encode: EncodeOptions

    static let defaultTotalDecodeMemory = ByteCount(bytes: Int64(DecodeBudget.defaultCapacity))

    static let totalDecodeMemoryHelp = ByteCount.optionHelp(
        "Memory all decodes in flight may use together, at least --max-decode-memory (default: \(defaultTotalDecodeMemory)).",
        discussion: "Each decode reserves its estimate first and waits while the others hold too much, so the peak stays "
            + "near this plus the process's base, whatever --concurrency and the images are.")

    @Option(help: totalDecodeMemoryHelp, transform: { try ByteCount(parsing: $0) })
    var totalDecodeMemory: ByteCount = defaultTotalDecodeMemory

    func parsedSizes() throws -> [Int] {
        let fields = sizes.split(separator: ",", omittingEmptySubsequences: false)
        let parsed = fields.compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.filter { (1...ThumbnailRequest.maxSize).contains($0) }
        guard !fields.isEmpty, parsed.count == fields.count else {
            throw ValidationError("--sizes takes sizes from 1 to \(ThumbnailRequest.maxSize) separated by commas, e.g. 64,256")
        }
        return parsed
    }

    func validate() throws {
        _ = try parsedSizes()
        if let server, URL(string: server)?.host == nil || !(server.hasPrefix("http://") || server.hasPrefix("https://")) {
            throw ValidationError("--server takes an http(s) base URL, e.g. http://127.0.0.1:8080, got \"\(server)\"")
        }
        guard Self.concurrencyRange.contains(concurrency) else {
            throw ValidationError("--concurrency must be between \(Self.concurrencyRange.lowerBound) and \(Self.concurrencyRange.upperBound)")
        }
        // A NaN or an infinity is in no range.
        guard Self.progressIntervalRange.contains(progressInterval) else {
            throw ValidationError("--progress-interval must be between \(Self.progressIntervalText) seconds")
        }
        guard totalDecodeMemory.bytes >= decode.maxDecodeMemory.bytes else {
            throw ValidationError("--total-decode-memory (\(totalDecodeMemory)) must be at least --max-decode-memory (\(decode.maxDecodeMemory))")
        }
    }

    func run() async throws {
        let urls = try readList()
        // Opened first: a report that cannot be written stops the run before it starts.
        let reportFile = try json.map { path throws(FileOutput.Failure) in try WarmReportFile(path: path) }
        if let server {
            let warmer = ServerWarmer(baseURL: server, signer: try signing.signer(), sizes: try parsedSizes(), concurrency: concurrency)
            try await warmAndReport(urls, reportFile: reportFile) { await warmer.run(urls, onProgress: $0, onFailure: $1) }
            return
        }
        let qualities = try encode.qualities()
        let metadata = try encode.metadataPolicy()
        let pipeline = try cache.openPipeline { configuration in
            fetch.apply(to: &configuration)
            decode.apply(to: &configuration)
            configuration.formatQuality = qualities
            configuration.metadata = metadata
            configuration.decodeBudget = DecodeBudget(capacity: Int(clamping: totalDecodeMemory.bytes))
            // Each thumbnail is asked for once: a large memory cache would only grow the footprint.
            configuration.memoryLimits = .init(totalCost: 4 << 20, count: 256)
            // A list from one origin: each URL in flight gets a connection, none waits behind a slow one.
            configuration.fetchLimits.maxConnectionsPerHost = max(configuration.fetchLimits.maxConnectionsPerHost, concurrency)
        }
        let warmer = CacheWarmer(pipeline: pipeline, sizes: try parsedSizes(), concurrency: concurrency)
        try await warmAndReport(urls, reportFile: reportFile, afterRun: { await pipeline.close() }) {
            await warmer.run(urls, onProgress: $0, onFailure: $1)
        }
    }

    /// Runs `warm` with progress and a signal trap, prints the report, writes the JSON one, and exits as documented.
    private func warmAndReport(_ urls: [String], reportFile: WarmReportFile?, afterRun: () async -> Void = {},
                               _ warm: @escaping @Sendable (_ onProgress: @escaping @Sendable (WarmReport) -> Void,
                                                            _ onFailure: @escaping @Sendable (WarmReport.Failure) -> Void) async throws -> WarmReport) async throws {
        let printer = ProgressPrinter.automatic(quiet: quiet, interval: .seconds(progressInterval))
        let work = Task { try await warm(printer.update, { reportFile?.record($0) }) }
        let trap = SignalTrap { _ in work.cancel() }
        let report = try await work.value
        printer.finish()
        await afterRun()

        printReport(report, interruptedBy: trap.signal)
        var unwritten = false
        if let reportFile {
            do { try reportFile.finish(report) } catch {
                Console.error(error.description)
                unwritten = true
            }
        }
        if let signal = trap.signal { throw ExitCode(128 + signal) }
        if unwritten { throw ExitCode(Console.Status.output) }
        if report.failedCount > 0 { throw ExitCode(Console.Status.someFailed) }
    }

    /// The URLs of FILE or standard input; the bytes read are released on return.
    private func readList() throws(Console.Failure) -> [String] {
        do {
            let data = try file == "-" ? FileHandle.standardInput.readToEnd() ?? Data() : Data(contentsOf: URL(fileURLWithPath: file))
            return CacheWarmer.parseList(String(decoding: data, as: UTF8.self))
        } catch {
            throw Console.Failure(description: "cannot read \(file): \(error.localizedDescription)", exitCode: Console.Status.usage)
        }
    }

    /// The report on stderr; failures beyond the sample are counted, not listed (they are in the --json report).
    private func printReport(_ report: WarmReport, interruptedBy signal: Int32?) {
        var lines: [String] = []
        let state = signal.map { "interrupted by \($0 == SIGINT ? "SIGINT" : "SIGTERM") after" } ?? "warmed"
        lines.append("\(state) \(report.done) of \(report.total) URLs in \(String(format: "%.1f", report.seconds)) s "
            + "(\(String(format: "%.1f", report.rate)) URLs/s): \(report.fetched) fetched, \(report.fresh) already fresh, "
            + "\(report.revalidated) revalidated, \(report.failedCount) failed")
        lines.append("downloaded \(report.bytesDownloaded) bytes, stored \(report.bytesStored) bytes")
        if report.failedCount > 0 {
            lines.append("failed:")
            for failure in report.failureSample { lines.append("  \(failure.url): \(failure.reason)") }
            let unlisted = report.failedCount - report.failureSample.count
            if unlisted > 0 {
                lines.append("  … and \(unlisted) more" + (json.map { " (all of them in \($0))" } ?? " (--json FILE lists all of them)"))
            }
        }
        if signal != nil { lines.append("the cache is consistent; run the same command again to finish") }
        Console.standardError(lines.map { "thumbcache: \($0)\n" }.joined())
    }
}
