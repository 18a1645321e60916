import ArgumentParser
import Foundation
import ImageDecode
import ThumbcacheKit

/// `thumbcache get URL --size N`: a thumbnail from memory, disk or network, doing the least work possible.
struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Get a thumbnail of the image at URL, from the cache or the network.",
        discussion: """
            URL is an http(s) URL, a file:// URL or a path. The original and its thumbnails are cached \
            with HTTP semantics: a fresh entry is served with no request, a stale one is revalidated \
            (If-None-Match / If-Modified-Since), a changed one is replaced.

            Exit codes: 0 success; 3 network error (timeout, refused, cut connection, host does not resolve, \
            too many redirects, redirect cycle); 4 HTTP status not 2xx (also 206 Partial Content, a redirect that \
            cannot be followed); 5 not an image (or compressed with a Content-Encoding), corrupt, unsupported or \
            unreadable input (not a regular file); 6 over a limit (download size, pixel budget); 7 --offline and not \
            cached; 8 cache directory error; 9 source refused (a redirect to a scheme other than http(s)); 64 usage \
            (or a bad URL, port outside 1-65535, a bad --ca-file). With --stale-if-error, a stale copy served for a \
            failing origin exits 0 with a warning. user:password in a URL is sent as Basic auth to that origin only, \
            and never stored or printed.
            """
    )

    @Argument(help: "http(s) URL, file:// URL or path of the image.")
    var url: String

    @Option(help: "Longest side of the thumbnail in pixels (never enlarged).")
    var size: Int

    @Option(name: .shortAndLong, help: "Where to write the thumbnail; - for standard output (default: <name>-<size>.<ext> here).")
    var output: String?

    @Option(help: "jpeg or png (default: jpeg, or png when the image has transparency).")
    var format: ImageFormat?

    @OptionGroup var cache: CacheOptions

    @Flag(help: "Answer from the cache only; fail with exit code 7 on a miss.")
    var offline = false

    @Flag(help: "Revalidate with the origin even if the cached copy is fresh.")
    var refresh = false

    @Option(help: ArgumentHelp(
        "If the origin fails (network error, HTTP 500/502/503/504) while revalidating, serve the cached copy when it is at most this many seconds stale.",
        discussion: "A warning on stderr says so. The origin's must-revalidate or no-cache wins; its own stale-if-error=N is honoured without this option.",
        valueName: "seconds"))
    var staleIfError: Int?

    @Flag(help: "Report as one JSON object (on stdout, or on stderr when the image goes to stdout).")
    var json = false

    @OptionGroup var fetch: FetchOptions

    func validate() throws {
        guard (1...ThumbnailRequest.maxSize).contains(size) else {
            throw ValidationError("--size must be between 1 and \(ThumbnailRequest.maxSize)")
        }
        if offline && refresh { throw ValidationError("--offline and --refresh contradict each other") }
        if let staleIfError, staleIfError < 0 { throw ValidationError("--stale-if-error must be 0 or more seconds") }
    }

    func run() async throws {
        let source: ImageSource
        do { source = try ImageSource(url) } catch { throw Console.fail(error) }
        let pipeline = try cache.openPipeline {
            fetch.apply(to: &$0)
            $0.staleIfError = staleIfError.map { .seconds($0) }
        }
        let policy: FetchPolicy = offline ? .offline : refresh ? .refresh : .normal
        let result: ThumbnailResult
        do {
            result = try await pipeline.thumbnail(for: source, size: size, format: format, policy: policy)
        } catch {
            await pipeline.close()
            throw Console.fail(error)
        }
        await pipeline.close()

        let destination = output ?? defaultOutput(for: source, format: result.format)
        do {
            if destination == "-" {
                FileHandle.standardOutput.write(result.data)
            } else {
                try AtomicFile.replace(destination, with: result.data)
            }
        } catch {
            Console.error("\(error)")
            throw ExitCode.failure
        }
        if let stale = result.staleBecause {
            Console.error("warning: served a copy \(Int(stale.staleness.rounded())) s past fresh because the origin failed: \(stale.originError)")
        }
        report(result, destination: destination)
    }

    private func defaultOutput(for source: ImageSource, format: ImageFormat) -> String {
        var name = URL(fileURLWithPath: source.location).deletingPathExtension().lastPathComponent
        if name.isEmpty || name == "/" { name = "thumbnail" }
        return "\(name)-\(size).\(format.fileExtension)"
    }

    private func report(_ result: ThumbnailResult, destination: String) {
        if json {
            let text = Console.json([
                "output": destination, "servedFrom": result.servedFrom.rawValue, "source": result.source,
                "key": result.cacheKey, "format": result.format.rawValue, "width": result.width, "height": result.height,
                "bytes": result.data.count, "bytesDownloaded": result.bytesDownloaded, "rendered": result.rendered,
            ].merging(result.staleBecause.map { ["staleBecause": $0.originError, "staleSeconds": $0.staleness] } ?? [:]) { a, _ in a })
            if destination == "-" { Console.error(text) } else { print(text) }
        } else {
            let place = destination == "-" ? "standard output" : destination
            Console.error("\(result.width)x\(result.height) \(result.format.rawValue) (\(result.data.count) bytes) → \(place) [\(result.servedFrom.rawValue)]")
        }
    }
}
