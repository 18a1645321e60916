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
            (If-None-Match / If-Modified-Since), a changed one is replaced. Thumbnails of the ladder sizes \
            (64, 128, 256, 512, 1024) are stored in every format asked for (\(ImageFormat.names(ImageFormat.encodable))), so a later get \
            of the same size and format decodes nothing; other sizes are rendered from the nearest larger stored one.

            Exit codes: 0 success; 3 network error (timeout, refused, cut connection, host does not resolve, \
            too many redirects, redirect cycle); 4 HTTP status not 2xx (also 206 Partial Content, a redirect that \
            cannot be followed); 5 not an image (or compressed with a Content-Encoding), corrupt, unsupported or \
            unreadable input (not a regular file); 6 over a limit (download size, --max-pixels, decode memory); 7 --offline and not \
            cached; 8 cache directory error (also a non-empty directory that is not a thumbcache cache); 9 source refused (a redirect to a scheme other than http(s)); 64 usage \
            (or a bad URL, port outside 1-65535, a bad --ca-file, an -o extension of a format not written such as .gif); 69 a library the image's format needs is not \
            installed (HEIC, JPEG XL, AVIF, TIFF; the message says what to install); 74 the thumbnail or the report could not be \
            written (full disk, closed pipe). With --stale-if-error, a stale copy served for a failing origin exits 0 \
            with a warning, and so does a thumbnail that could not be cached (full cache disk). With --json, a failure is the object {"error", "message", "exitCode"} where the report \
            would have gone. user:password in a URL is sent as Basic auth to that origin only, and never stored or \
            printed.
            """
    )

    @Argument(help: "http(s) URL, file:// URL or path of the image.")
    var url: String

    @Option(help: "Longest side of the thumbnail in pixels, 1-\(ThumbnailRequest.maxSize) (never enlarged, but an SVG is drawn at it).")
    var size: Int?

    @Option(help: ArgumentHelp(
        "imgproxy processing options instead of --size, e.g. rs:fill:300:200/g:sm (docs/processing.md): the image serve answers for them.",
        valueName: "options"))
    var options: String?

    @Flag(help: ArgumentHelp(
        "Write the cached original's bytes instead of a thumbnail (fresh from the cache, revalidated when stale, fetched when absent).",
        discussion: "The default output name is <name>.<ext of the original's format>; --size, --options and --format do not apply."))
    var original = false

    @Option(name: .shortAndLong, help: ArgumentHelp(
        "Where to write the thumbnail; - for standard output (default: <name>-<size>.<ext> here, <name> from the URL's path).",
        discussion: "A regular file is replaced atomically; a device or FIFO is written in place."))
    var output: String?

    @Option(help: "\(ImageFormat.names(ImageFormat.askable)) (default: from the -o extension, else jpeg, or png when the image has transparency; svg passes an SVG source through, sanitised).")
    var format: ImageFormat?

    @OptionGroup var cache: CacheOptions

    @Flag(help: "Answer from the cache only; fail with exit code 7 on a miss.")
    var offline = false

    @Flag(help: "Revalidate with the origin even if the cached copy is fresh.")
    var refresh = false

    @Option(help: ArgumentHelp(
        "If the origin fails (network error, HTTP 500/502/503/504) while revalidating, serve the cached copy when it is at most this many seconds stale (0 or more).",
        discussion: "A warning on stderr says so. The origin's must-revalidate or no-cache wins; its own stale-if-error=N is honoured without this option.",
        valueName: "seconds"))
    var staleIfError: Int?

    @Flag(help: "Report as one JSON object (on stdout, or on stderr when the image goes to stdout).")
    var json = false

    @OptionGroup var fetch: FetchOptions

    @OptionGroup var decode: DecodeOptions

    @OptionGroup var encode: EncodeOptions

    func validate() throws {
        if offline && refresh { throw ValidationError("--offline and --refresh contradict each other") }
        if let staleIfError, staleIfError < 0 { throw ValidationError("--stale-if-error must be 0 or more seconds") }
        if original {
            if size != nil || options != nil || format != nil {
                throw ValidationError("--original writes the original: --size, --options and --format do not apply")
            }
            return
        }
        switch (size, options) {
        case (nil, nil): throw ValidationError("give --size N or --options LIST (or --original)")
        case (.some, .some): throw ValidationError("give --size or --options, not both")
        case (let size?, nil) where !(1...ThumbnailRequest.maxSize).contains(size):
            throw ValidationError("--size must be between 1 and \(ThumbnailRequest.maxSize)")
        default: break
        }
        _ = try processingOptions()
        _ = try OutputFormat.resolve(output: output, format: format)
    }

    func run() async throws {
        do { try await getThumbnail() } catch { throw Console.fail(error, json: json ? reportStream : nil) }
    }

    /// Where the JSON report goes: stdout, unless the image does.
    private var reportStream: Console.Stream { output == "-" ? .standardError : .standardOutput }

    private var policy: FetchPolicy { offline ? .offline : refresh ? .refresh : .normal }

    private func openPipeline() throws -> ThumbnailPipeline {
        let qualities = try encode.qualities()
        let metadata = try encode.metadataPolicy()
        return try cache.openPipeline {
            fetch.apply(to: &$0)
            decode.apply(to: &$0)
            $0.formatQuality = qualities
            $0.metadata = metadata
            $0.staleIfError = staleIfError.map { .seconds($0) }
        }
    }

    private func getThumbnail() async throws {
        if original { return try await getOriginal() }
        let source = try ImageSource(url)
        let format = try OutputFormat.resolve(output: output, format: format)
        let pipeline = try openPipeline()
        let result: ThumbnailResult
        do {
            if let processing = try processingOptions() {
                result = try await pipeline.processed(for: source, options: processing, format: format, policy: policy)
            } else {
                result = try await pipeline.thumbnail(for: source, size: size ?? 0, format: format, policy: policy)
            }
        } catch {
            await pipeline.close()
            throw error
        }
        await pipeline.close()

        let label = size.map(String.init) ?? "\(result.width)x\(result.height)"
        let destination = output ?? "\(OutputName.stem(for: source))-\(label).\(result.format.fileExtension)"
        if destination == "-" {
            try Console.write(result.data, to: .standardOutput)
        } else {
            try AtomicFile.replace(destination, with: result.data)
        }
        if let reason = result.notCachedBecause {
            Console.error("warning: the thumbnail was written but not cached: \(reason)")
        }
        if let stale = result.staleBecause {
            Console.error("warning: served a copy \(String(format: "%.0f", stale.staleness)) s past fresh because the origin failed: \(stale.originError)")
        }
        try report(result, destination: destination)
    }

    /// `--original`: the cached original's bytes, as the cache holds them.
    private func getOriginal() async throws {
        let source = try ImageSource(url)
        let pipeline = try openPipeline()
        let stored: CachedOriginal
        do { stored = try await pipeline.original(for: source, policy: policy) } catch {
            await pipeline.close()
            throw error
        }
        await pipeline.close()
        let format = ImageFormat.sniff(stored.data)?.fileExtension ?? String(stored.contentType.dropFirst("image/".count))
        let destination = output ?? "\(OutputName.stem(for: source)).\(format)"
        if destination == "-" {
            try Console.write(stored.data, to: .standardOutput)
        } else {
            try AtomicFile.replace(destination, with: stored.data)
        }
        if json {
            let text = Console.json([
                "output": destination, "servedFrom": stored.servedFrom.rawValue, "source": stored.source, "key": stored.cacheKey,
                "contentType": stored.contentType, "bytes": stored.data.count,
            ])
            try Console.write(Data((text + "\n").utf8), to: reportStream)
        } else {
            let place = destination == "-" ? "standard output" : destination
            Console.error("original \(stored.contentType) (\(stored.data.count) bytes) → \(place) [\(stored.servedFrom.rawValue)]")
        }
    }

    /// `--options` parsed as serve parses a URL's options (one parser); nil without it.
    private func processingOptions() throws -> ProcessingOptions? {
        guard let options else { return nil }
        do { return try ProcessingOptions(parsing: options) } catch {
            throw ValidationError("--options: \(error)")
        }
    }

    private func report(_ result: ThumbnailResult, destination: String) throws(FileOutput.Failure) {
        if json {
            let text = Console.json([
                "output": destination, "servedFrom": result.servedFrom.rawValue, "source": result.source,
                "key": result.cacheKey, "format": result.format.rawValue, "width": result.width, "height": result.height,
                "bytes": result.data.count, "bytesDownloaded": result.bytesDownloaded, "rendered": result.rendered,
            ].merging(result.staleBecause.map { ["staleBecause": $0.originError, "staleSeconds": $0.staleness] } ?? [:]) { a, _ in a }
             .merging(result.notCachedBecause.map { ["notCachedBecause": $0] } ?? [:]) { a, _ in a })
            try Console.write(Data((text + "\n").utf8), to: reportStream)
        } else {
            let place = destination == "-" ? "standard output" : destination
            Console.error("\(result.width)x\(result.height) \(result.format.rawValue) (\(result.data.count) bytes) → \(place) [\(result.servedFrom.rawValue)]")
        }
    }
}
