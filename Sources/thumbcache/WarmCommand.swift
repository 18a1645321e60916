import ArgumentParser
import Foundation
import ThumbcacheKit

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

            Exit codes: 0 every URL warmed; 1 some URLs failed (listed in the report); 8 cache directory \
            error; 64 usage; 130 / 143 interrupted by SIGINT / SIGTERM.
            """
    )

    @Argument(help: "File with one URL per line, or - for standard input.")
    var file: String = "-"

    @Option(help: "Comma-separated thumbnail sizes to make for every URL.")
    var sizes: String = "64,256"

    @Option(help: "URLs in flight at once (downloads and decodes).")
    var concurrency: Int = 8

    @Option(help: "Also write the report as JSON to this file.")
    var json: String?

    @Flag(help: "No progress output (the final report is still printed).")
    var quiet = false

    @Option(help: "Seconds between progress lines when stderr is not a terminal.")
    var progressInterval: Double = 5

    @OptionGroup var cache: CacheOptions

    @OptionGroup var fetch: FetchOptions

    func parsedSizes() throws -> [Int] {
        let parsed = sizes.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !parsed.isEmpty, parsed.allSatisfy({ $0 != nil && (1...8192).contains($0!) }) else {
            throw ValidationError("--sizes takes sizes from 1 to 8192 separated by commas, e.g. 64,256")
        }
        return parsed.map { $0! }
    }

    func validate() throws {
        _ = try parsedSizes()
        guard (1...256).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 256") }
    }

    func run() async throws {
        let text: String
        do {
            let data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file))
            text = String(decoding: data, as: UTF8.self)
        } catch {
            Console.error("cannot read \(file): \(error.localizedDescription)")
            throw ExitCode(64)
        }
        let urls = CacheWarmer.parseList(text)
        let pipeline = try cache.openPipeline { configuration in
            fetch.apply(to: &configuration)
            // Each thumbnail is asked for once: a large memory cache would only grow the footprint.
            configuration.memoryLimits = .init(totalCost: 4 << 20, count: 256)
        }
        let warmer = CacheWarmer(pipeline: pipeline, sizes: try parsedSizes(), concurrency: concurrency)
        let printer = ProgressPrinter.automatic(quiet: quiet, interval: .milliseconds(Int64(progressInterval * 1000)))

        let work = Task { await warmer.run(urls, onProgress: printer.update) }
        let trap = SignalTrap { _ in work.cancel() }
        let report = await work.value
        printer.finish()
        await pipeline.close()

        print(report: report, interruptedBy: trap.signal)
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            do {
                try encoder.encode(report).write(to: URL(fileURLWithPath: json), options: .atomic)
            } catch {
                Console.error("cannot write the report to \(json): \(error.localizedDescription)")
            }
        }
        if let signal = trap.signal { throw ExitCode(128 + signal) }
        if !report.failed.isEmpty { throw ExitCode.failure }
    }

    private func print(report: WarmReport, interruptedBy signal: Int32?) {
        var lines: [String] = []
        let state = signal.map { "interrupted by \($0 == SIGINT ? "SIGINT" : "SIGTERM") after" } ?? "warmed"
        lines.append("\(state) \(report.done) of \(report.total) URLs in \(String(format: "%.1f", report.seconds)) s "
            + "(\(String(format: "%.1f", report.rate)) URLs/s): \(report.fetched) fetched, \(report.fresh) already fresh, "
            + "\(report.revalidated) revalidated, \(report.failed.count) failed")
        lines.append("downloaded \(report.bytesDownloaded) bytes, stored \(report.bytesStored) bytes")
        if !report.failed.isEmpty {
            lines.append("failed:")
            for failure in report.failed { lines.append("  \(failure.url): \(failure.reason)") }
        }
        if signal != nil { lines.append("the cache is consistent; run the same command again to finish") }
        FileHandle.standardError.write(Data(lines.map { "thumbcache: \($0)\n" }.joined().utf8))
    }
}
