import ArgumentParser
import Foundation
import ImageDecode
import Logging
import Processing
import ThumbcacheKit
import ThumbcacheServer

/// `thumbcache serve`: the thumbnail service over HTTP (see `ThumbcacheServer`).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve thumbnails over HTTP: GET|HEAD /<signature>/<size>/<fit>/<source>[.<format>], and imgproxy's processing URLs.",
        discussion: """
            imgproxy's processing URLs are served too: GET|HEAD /<signature>/<option>:<args>/…/<source>, signed the \
            same way; their grammar, options, presets and errors are in docs/serve.md#processing-urls-imgproxys-grammar.

            Short grammar: \
            <source> is the source URL as base64url without padding; <size> the longest side (contain) or the \
            square's side (cover), 1 to --max-size; <fit> contain or cover; .<format> \(ImageFormat.names(ImageFormat.encodable)). \
            Without .<format> the request's Accept chooses (answered with Vary: Accept): jxl if it names \
            image/jxl (with --auto-jxl), else avif if it names image/avif, else webp if it names image/webp (a \
            wildcard such as */* names neither; an animated source passes jxl and avif over, which keep no \
            animation), else jpeg, png when the image has transparency; a negotiated webp, avif or jxl more than 3% larger than that default format's \
            file of the same pixels is answered in the default format instead. Each format has its default quality \
            (--format-quality). <signature> is base64url(HMAC-SHA256(key, salt + the path after \
            the signature)) with --key and --salt (imgproxy's construction; see 'thumbcache sign'), else the \
            literal 'unsafe'. Every flag can also be set by its THUMBCACHE_* variable; the flag wins.

            Sources: http and https only. Loopback, private, link-local, shared and multicast addresses are \
            refused after DNS resolution on every redirect hop, unless --allow-loopback-sources or \
            --allow-private-sources; --allow-source restricts sources to URL prefixes. --source-base-url is \
            prepended to every source (checked after joining); --local-root DIR serves local:///path from DIR.

            Answers: 200 with ETag, Last-Modified, Cache-Control: public, max-age=<the source's remaining \
            freshness, clamped to --min-ttl..--max-ttl>, X-Thumbcache (memory, disk, revalidated, network, stale) \
            and Server-Timing; 304 for a matching If-None-Match or If-Modified-Since. Errors are JSON \
            {"error", "message"} with Cache-Control: no-store: 400 malformed path, 403 bad signature, refused \
            source or security option, 404 origin 4xx, 413 download too large, 422 not an image or over the pixel budget, 502 origin \
            failed, 503 overloaded or stopping (Retry-After), 504 timeout.

            Also: GET /healthz (503 while stopping), GET /metrics (Prometheus), POST /admin/purge/<source> (one \
            source) and POST /admin/purge-all (everything, answering {"entries", "bytes", "memoryThumbnails"}) with \
            Authorization: Bearer <--admin-token>, and /demo with --demo. --cache-key-ignore-query X-Amz-* makes \
            presigned URLs of one object share one entry (the parameters are still sent to the origin). SIGTERM or SIGINT: stop accepting, \
            finish requests in flight within --shutdown-timeout, close the cache, exit 0. Exit codes: 0 stopped; \
            8 cache directory error; 64 usage (or a configuration refused, e.g. a public bind without --key, or flags \
            that conflict: the same --port and --metrics-port, --min-ttl over --max-ttl, --variant-disk-size over \
            --max-disk-size, --only-presets without a --preset).
            """
    )

    @Option(help: ArgumentHelp(EnvironmentFallback.help("Address to listen on (default: 127.0.0.1).", flag: "host")))
    var host: String?

    @Option(help: ArgumentHelp(EnvironmentFallback.help("Port to listen on; 0 picks a free one (default: 8080).", flag: "port")))
    var port: Int?

    @Option(help: ArgumentHelp(EnvironmentFallback.help("Serve /metrics on this port instead, same address (/healthz answers on both).", flag: "metrics-port")))
    var metricsPort: Int?

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "HMAC key in hex: URLs must be signed. Repeat it (with --salt) to rotate keys: the first signs, any verifies; the variable takes a comma list.",
        flag: "key"), valueName: "hex"))
    var key: [String] = []

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "Salt in hex, prepended to the signed path; one per --key, in the same order (none: no salt).", flag: "salt"), valueName: "hex"))
    var salt: [String] = []

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "Signatures are the HMAC's first this many bytes, 1-32, for shorter URLs (imgproxy's IMGPROXY_SIGNATURE_SIZE; default: 32).",
        flag: "signature-size"), valueName: "bytes"))
    var signatureSize: Int?

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "A signature segment accepted for any path without an HMAC check (repeatable; the variable takes a comma list; imgproxy's IMGPROXY_TRUSTED_SIGNATURES).",
        flag: "trusted-signature"), valueName: "signature"))
    var trustedSignature: [String] = []

    @Option(help: ArgumentHelp(
        "A processing preset NAME=options, e.g. thumb=rs:fill:300:200/g:sm (repeatable); one named default applies to every processing URL (env THUMBCACHE_PRESETS, imgproxy's a=...,b=... form).",
        valueName: "name=options"))
    var preset: [String] = []

    @Flag(help: ArgumentHelp(EnvironmentFallback.help(
        "Processing URLs may name presets only (pr:NAME): no URL can ask for an image outside them.", flag: "only-presets")))
    var onlyPresets = false

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "Comma list of the option names a processing URL may hold, as URLs spell them (e.g. w,h,pr); others are a 400 forbidden_option. Presets may use any (imgproxy's IMGPROXY_ALLOWED_PROCESSING_OPTIONS). Default: all.",
        flag: "allowed-processing-options"), valueName: "names"))
    var allowedProcessingOptions: String?

    @Flag(help: ArgumentHelp(EnvironmentFallback.help(
        "A base64 source split by \"/\" ends with a filename for the client, which is dropped: /<sig>/<options>/<base64>/<name> (imgproxy's IMGPROXY_BASE64_URL_INCLUDES_FILENAME).",
        flag: "base64-url-includes-filename")))
    var base64UrlIncludesFilename = false

    @Flag(help: ArgumentHelp(EnvironmentFallback.help("Allow a non-loopback address without --key (an open image proxy).", flag: "allow-unsigned")))
    var allowUnsigned = false

    @Option(help: ArgumentHelp(EnvironmentFallback.help("Largest <size> accepted, and the longest side a processed image may have after dpr, zoom, extend and padding (default: 2048).", flag: "max-size")))
    var maxSize: Int?

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "Processing URLs without max_result_dimension are scaled down to fit this many pixels a side, extend and padding included (imgproxy's IMGPROXY_MAX_RESULT_DIMENSION); 0: none, the default. At most --max-size.",
        flag: "max-result-dimension"), valueName: "pixels"))
    var maxResultDimension: Int?

    @Flag(help: ArgumentHelp(EnvironmentFallback.help(
        "URLs may name the security options max_result_dimension, max_src_resolution, max_src_file_size, max_animation_frames and max_animation_frame_resolution (imgproxy's IMGPROXY_ALLOW_SECURITY_OPTIONS); without it they are a 403. The source and animation limits only lower this server's own.",
        flag: "allow-security-options")))
    var allowSecurityOptions = false

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "Serve local:///path sources from the files under this directory (imgproxy's IMGPROXY_LOCAL_FILESYSTEM_ROOT); no path leaves it, symbolic links are not followed. Off unless set.",
        flag: "local-root"), valueName: "dir"))
    var localRoot: String?

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "Prepended to every source URL that does not start with it (imgproxy's IMGPROXY_BASE_URL); the source checks apply to the joined URL.",
        flag: "source-base-url"), valueName: "url"))
    var sourceBaseUrl: String?

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "Thumbnail paths (both grammars) start with this, e.g. /imgproxy; the signature covers what follows it (imgproxy's IMGPROXY_PATH_PREFIX).",
        flag: "path-prefix"), valueName: "path"))
    var pathPrefix: String?

    @Flag(help: ArgumentHelp(EnvironmentFallback.help(
        "Processing URLs take dpr and width from the Sec-CH-DPR/DPR and Sec-CH-Width/Width request headers when the URL does not set them (imgproxy's IMGPROXY_ENABLE_CLIENT_HINTS); answers Vary on them.",
        flag: "client-hints")))
    var clientHints = false

    @Flag(help: ArgumentHelp(EnvironmentFallback.help(
        "Answer WebP, even when the URL names another format, when Accept names image/webp (imgproxy's IMGPROXY_ENFORCE_WEBP).",
        flag: "enforce-webp")))
    var enforceWebp = false

    @Flag(help: ArgumentHelp(EnvironmentFallback.help(
        "Answer AVIF, even when the URL names another format, when Accept names image/avif (imgproxy's IMGPROXY_ENFORCE_AVIF); before --enforce-webp; not for an animation.",
        flag: "enforce-avif")))
    var enforceAvif = false

    @Flag(help: ArgumentHelp(EnvironmentFallback.help(
        "Answer JPEG XL, even when the URL names another format, when Accept names image/jxl (imgproxy's IMGPROXY_ENFORCE_JXL); before --enforce-avif; not for an animation. Implies --auto-jxl.",
        flag: "enforce-jxl")))
    var enforceJxl = false

    @Flag(help: ArgumentHelp(EnvironmentFallback.help(
        "Answer JPEG XL to a URL naming no format when Accept names image/jxl (imgproxy's IMGPROXY_AUTO_JXL); before AVIF and WebP, which are always negotiated so. Not for an animation: AVIF and JPEG XL are passed over for WebP, else the default format.",
        flag: "auto-jxl")))
    var autoJxl = false

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "Formats a processing URL naming none (and taking none from Accept) is answered in: the source's format when listed, else the first listed that keeps its animation and transparency, else the first (imgproxy's IMGPROXY_PREFERRED_FORMATS); a comma list of \(ImageFormat.names(ImageFormat.encodable)) (default: jpeg,png,gif).",
        flag: "preferred-formats"), valueName: "list"))
    var preferredFormats: String?

    @Flag(help: ArgumentHelp(EnvironmentFallback.help(
        "Processing URLs that name no format draw an SVG source (PNG, or the format negotiated from Accept) instead of answering the SVG itself, sanitised (imgproxy's IMGPROXY_ALWAYS_RASTERIZE_SVG). An SVG asked for as SVG (f:svg, @svg) is passed through either way.",
        flag: "always-rasterize-svg")))
    var alwaysRasterizeSvg = false

    @Flag(help: ArgumentHelp(EnvironmentFallback.help(
        "Answer an SVG passed through as it is, without removing scripts, event attributes and unsafe links first (imgproxy's IMGPROXY_SANITIZE_SVG=false). Only for sources you trust: their scripts run on your origin.",
        flag: "no-sanitize-svg")))
    var noSanitizeSvg = false

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "Sources in this format (\(ImageFormat.names(ImageFormat.decodable, imgproxyNames: true))) are answered unprocessed by every processing URL that keeps their format, a server-wide skip_processing (repeatable; the variable takes a comma list; imgproxy's IMGPROXY_SKIP_PROCESSING_FORMATS).",
        flag: "skip-processing-format"), valueName: "format"))
    var skipProcessingFormat: [String] = []

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "Most arithmetic one processed image's blur, sharpen, pixelate and smart gravity may cost, estimated from the source's header; over it the URL is a 400 too_costly naming the option (default: \(RenderLimits.defaultMaxEffectWork), about 7 s of one core for a blur on our benchmark machine).",
        flag: "max-effect-work"), valueName: "operations"))
    var maxEffectWork: Int?

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "Frames of an animated GIF or WebP rendered, at least 1; later frames are dropped, and 1 gives the first frame only (default: \(RenderLimits.defaultMaxAnimationFrames); imgproxy's IMGPROXY_MAX_ANIMATION_FRAMES, whose default is 1).",
        flag: "max-animation-frames"), valueName: "frames"))
    var maxAnimationFrames: Int?

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "Pixels each frame of an animation may have; when set, --max-pixels no longer counts all frames (default: 0, none: width x height x frames taken must be within --max-pixels; imgproxy's IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION).",
        flag: "max-animation-frame-resolution"), valueName: "pixels"))
    var maxAnimationFrameResolution: Int?

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "Watermark image file drawn by a URL's watermark (wm) option (imgproxy's IMGPROXY_WATERMARK_PATH); read and decoded at start-up.",
        flag: "watermark-path"), valueName: "path"))
    var watermarkPath: String?

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "Watermark image fetched once at start-up under the source policy (imgproxy's IMGPROXY_WATERMARK_URL).",
        flag: "watermark-url"), valueName: "url"))
    var watermarkUrl: String?

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "Watermark image as base64 (imgproxy's IMGPROXY_WATERMARK_DATA); wins over --watermark-path, which wins over --watermark-url.",
        flag: "watermark-data"), valueName: "base64"))
    var watermarkData: String?

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "Multiplies every URL's watermark opacity, above 0 and at most 1 (imgproxy's IMGPROXY_WATERMARK_OPACITY; default: 1).",
        flag: "watermark-opacity"), valueName: "opacity"))
    var watermarkOpacity: Double?

    @Option(help: ArgumentHelp(EnvironmentFallback.help("Smallest max-age sent, seconds (default: 60).", flag: "min-ttl")))
    var minTtl: Int?

    @Option(help: ArgumentHelp(EnvironmentFallback.help("Largest max-age sent, seconds (default: 31536000).", flag: "max-ttl")))
    var maxTtl: Int?

    @Option(help: ArgumentHelp(EnvironmentFallback.help("Renders at once (default: the number of cores).", flag: "workers")))
    var workers: Int?

    @Option(help: ArgumentHelp(EnvironmentFallback.help("Renders that may wait for a worker; beyond, 503 (default: 64).", flag: "queue")))
    var queue: Int?

    @Option(help: ArgumentHelp(EnvironmentFallback.help("Request deadline in seconds; then 504 (default: 10).", flag: "timeout")))
    var timeout: Double?

    @Option(help: ArgumentHelp(EnvironmentFallback.help("Seconds to finish requests in flight after SIGTERM (default: 20).", flag: "shutdown-timeout")))
    var shutdownTimeout: Double?

    @Option(help: ArgumentHelp(EnvironmentFallback.help("Bearer token of POST /admin/purge/<source> and /admin/purge-all; without it there is no admin route.", flag: "admin-token")))
    var adminToken: String?

    @Flag(help: ArgumentHelp(EnvironmentFallback.help("Serve the demo page at /demo (and its samples; allows loopback sources).", flag: "demo")))
    var demo = false

    @Option(name: .customLong("allow-source"), help: ArgumentHelp(EnvironmentFallback.help(
        "Allowed source URL prefix (repeatable; end paths with /). Default: any public source.", flag: "allow-source"), valueName: "prefix"))
    var allowSources: [String] = []

    @Flag(help: ArgumentHelp(EnvironmentFallback.help("Allow sources on loopback addresses.", flag: "allow-loopback-sources")))
    var allowLoopbackSources = false

    @Flag(help: ArgumentHelp(EnvironmentFallback.help("Allow sources on private, shared and link-local addresses.", flag: "allow-private-sources")))
    var allowPrivateSources = false

    @Flag(help: ArgumentHelp(EnvironmentFallback.help(
        "Cache origin answers that set a cookie (by default they are served but not stored, as nginx does).", flag: "ignore-set-cookie")))
    var ignoreSetCookie = false

    @Flag(help: ArgumentHelp(EnvironmentFallback.help(
        "403s for refused sources name the addresses the host resolved to (debugging only: it makes the server a DNS oracle).",
        flag: "debug-refusals")))
    var debugRefusals = false

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "Seconds after SIGTERM during which new connections are still accepted and answered 503 (/healthz too) before the server stops accepting; 0: at once (default: 5).",
        flag: "drain-timeout")))
    var drainTimeout: Double?

    @Option(help: ArgumentHelp(EnvironmentFallback.help("Access log format: text or json (default: text).", flag: "log-format")))
    var logFormat: String?

    @Option(help: ArgumentHelp(EnvironmentFallback.help("Open connections at most (default: 1024).", flag: "max-connections")))
    var maxConnections: Int?

    @Option(help: ArgumentHelp(EnvironmentFallback.help("Close a connection idle this many seconds (default: 30).", flag: "idle-timeout")))
    var idleTimeout: Double?

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "Close a connection whose request head has not arrived whole within this many seconds (default: 10).", flag: "header-timeout")))
    var headerTimeout: Double?

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "Memory cache size, e.g. 256MiB (default: an eighth of the cgroup's memory limit, 16MiB-1GiB; 64MiB without a limit).",
        flag: "memory-cache-size"), valueName: "size"))
    var memoryCacheSize: String?

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "Pressure stall file watched to shrink the memory cache while the machine is short of memory; \"\" turns it off (default: /proc/pressure/memory and the cgroup's memory.pressure, else cgroup memory.current/memory.max, else /proc/meminfo).",
        flag: "memory-pressure-file"), valueName: "path"))
    var memoryPressureFile: String?

    @OptionGroup var cache: CacheOptions

    @OptionGroup var fetch: FetchOptions

    @OptionGroup var encode: EncodeOptions

    func run() async throws {
        let configuration = try serveConfiguration()
        if let problem = configuration.problem() {
            throw Console.Failure(description: problem, exitCode: Console.Status.usage)
        }
        let json = configuration.logFormat == .json
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, json: json) }
        // Log lines are batched; every one is written before serve exits, however it ends.
        defer { LogLineWriter.standardError.flush() }
        var pipelineConfiguration = try cache.configuration()
        if cache.cacheDir == nil, let directory = ProcessInfo.processInfo.environment["THUMBCACHE_CACHE_DIR"], !directory.isEmpty {
            pipelineConfiguration.cacheDirectory = URL(fileURLWithPath: directory)
        }
        fetch.apply(to: &pipelineConfiguration)
        pipelineConfiguration.formatQuality = try encode.qualities()
        pipelineConfiguration.metadata = try encode.metadataPolicy()
        pipelineConfiguration.alwaysRasterizeSVG = try EnvironmentFallback.flag(alwaysRasterizeSvg, flag: "always-rasterize-svg")
        pipelineConfiguration.sanitizeSVG = try !EnvironmentFallback.flag(noSanitizeSvg, flag: "no-sanitize-svg")
        if let list = try EnvironmentFallback.given(preferredFormats, flag: "preferred-formats") {
            do { pipelineConfiguration.preferredFormats = try PreferredFormats(parsing: list.value) } catch {
                throw list.failure("--preferred-formats: \(error)")
            }
        }
        if let work = try EnvironmentFallback.value(maxEffectWork, flag: "max-effect-work", in: 1...Int.max) {
            pipelineConfiguration.maxEffectWork = work
        }
        if let frames = try EnvironmentFallback.value(maxAnimationFrames, flag: "max-animation-frames", in: 1...Int.max) {
            pipelineConfiguration.maxAnimationFrames = frames
        }
        if let pixels = try EnvironmentFallback.value(maxAnimationFrameResolution, flag: "max-animation-frame-resolution",
                                                      in: 0...Int.max) {
            pipelineConfiguration.maxAnimationFrameResolution = pixels
        }
        if let size = try EnvironmentFallback.given(memoryCacheSize, flag: "memory-cache-size") {
            let bytes: ByteCount
            do { bytes = try ByteCount(parsing: size.value) } catch { throw size.failure("--memory-cache-size must be a size: \(error)") }
            pipelineConfiguration.memoryLimits = .init(totalCost: Int(bytes.bytes))
        } else {
            pipelineConfiguration.memoryLimits = .init(totalCost: CgroupMemoryLimit.suggestedCacheSize(limit: CgroupMemoryLimit.read()))
        }
        do {
            pipelineConfiguration.watermark = try await configuration.watermarkImage(pipeline: pipelineConfiguration)
        } catch {
            throw Console.Failure(description: error.description, exitCode: Console.Status.usage)
        }
        let service = try ThumbcacheService(configuration: configuration, pipeline: pipelineConfiguration) { message in
            Console.error(message)
        }
        let host = ServeConfiguration.bindAddress(configuration.host)
        try await service.run { port in
            Console.error("serving on http://\(host.contains(":") ? "[\(host)]" : host):\(port)")
        }
    }

    func serveConfiguration() throws -> ServeConfiguration {
        typealias Limits = ServeConfiguration
        var configuration = ServeConfiguration()
        configuration.host = try EnvironmentFallback.value(host, flag: "host") ?? configuration.host
        configuration.port = try EnvironmentFallback.value(port, flag: "port", in: Limits.ports) ?? configuration.port
        configuration.metricsPort = try EnvironmentFallback.value(metricsPort, flag: "metrics-port", in: Limits.ports)
        let pairs = try Self.keyPairs(keys: EnvironmentFallback.list(key, flag: "key"), salts: EnvironmentFallback.list(salt, flag: "salt"))
        if let first = pairs.first {
            (configuration.key, configuration.salt) = (first.key, first.salt)
            configuration.additionalKeys = Array(pairs.dropFirst())
        }
        configuration.signatureSize = try EnvironmentFallback.value(signatureSize, flag: "signature-size", in: URLSigner.signatureSizes)
            ?? configuration.signatureSize
        configuration.trustedSignatures = try EnvironmentFallback.list(trustedSignature, flag: "trusted-signature").map(\.value)
        configuration.presets = try Self.presets(preset)
        configuration.onlyPresets = try EnvironmentFallback.flag(onlyPresets, flag: "only-presets")
        configuration.base64URLIncludesFilename = try EnvironmentFallback.flag(base64UrlIncludesFilename, flag: "base64-url-includes-filename")
        if let names = try EnvironmentFallback.given(allowedProcessingOptions, flag: "allowed-processing-options") {
            configuration.allowedProcessingOptions = names.value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard !configuration.allowedProcessingOptions.isEmpty, !configuration.allowedProcessingOptions.contains("") else {
                throw names.failure("--allowed-processing-options must be a comma list of option names, e.g. w,h,rs,pr")
            }
        }
        configuration.allowUnsigned = try EnvironmentFallback.flag(allowUnsigned, flag: "allow-unsigned")
        configuration.maxSize = try EnvironmentFallback.value(maxSize, flag: "max-size", in: Limits.sizes) ?? configuration.maxSize
        configuration.maxResultDimension = try EnvironmentFallback.value(maxResultDimension, flag: "max-result-dimension",
                                                                         in: 0...Limits.sizes.upperBound) ?? 0
        configuration.allowSecurityOptions = try EnvironmentFallback.flag(allowSecurityOptions, flag: "allow-security-options")
        configuration.localRoot = try EnvironmentFallback.value(localRoot, flag: "local-root", emptyIsError: true)
        configuration.pathPrefix = try EnvironmentFallback.value(pathPrefix, flag: "path-prefix", emptyIsError: true)
        configuration.sourceBaseURL = try EnvironmentFallback.value(sourceBaseUrl, flag: "source-base-url", emptyIsError: true)
        configuration.clientHints = try EnvironmentFallback.flag(clientHints, flag: "client-hints")
        configuration.enforceWebP = try EnvironmentFallback.flag(enforceWebp, flag: "enforce-webp")
        configuration.enforceAVIF = try EnvironmentFallback.flag(enforceAvif, flag: "enforce-avif")
        configuration.enforceJXL = try EnvironmentFallback.flag(enforceJxl, flag: "enforce-jxl")
        configuration.autoJXL = try EnvironmentFallback.flag(autoJxl, flag: "auto-jxl")
        configuration.skipProcessingFormats = try EnvironmentFallback.list(skipProcessingFormat, flag: "skip-processing-format").map { name in
            guard let format = ImageFormat(name: name.value), format.isDecodable else {
                throw name.failure("--skip-processing-format must be one of \(ImageFormat.names(ImageFormat.decodable, imgproxyNames: true))")
            }
            return format
        }
        configuration.minTTL = try EnvironmentFallback.value(minTtl, flag: "min-ttl", in: Limits.ttls) ?? configuration.minTTL
        configuration.maxTTL = try EnvironmentFallback.value(maxTtl, flag: "max-ttl", in: Limits.ttls) ?? configuration.maxTTL
        configuration.workers = try EnvironmentFallback.value(workers, flag: "workers", in: Limits.workerCounts) ?? configuration.workers
        configuration.queue = try EnvironmentFallback.value(queue, flag: "queue", in: Limits.queueLengths) ?? configuration.queue
        configuration.maxConnections = try EnvironmentFallback.value(maxConnections, flag: "max-connections", in: Limits.connectionCounts)
            ?? configuration.maxConnections
        configuration.timeout = try Self.duration(timeout, "timeout") ?? configuration.timeout
        configuration.shutdownTimeout = try Self.duration(shutdownTimeout, "shutdown-timeout") ?? configuration.shutdownTimeout
        configuration.idleTimeout = try Self.duration(idleTimeout, "idle-timeout") ?? configuration.idleTimeout
        configuration.headerTimeout = try Self.duration(headerTimeout, "header-timeout") ?? configuration.headerTimeout
        configuration.drainTimeout = try Self.duration(drainTimeout, "drain-timeout", allowingZero: true) ?? configuration.drainTimeout
        if let file = try EnvironmentFallback.value(memoryPressureFile, flag: "memory-pressure-file") {
            if file.isEmpty { configuration.watchesMemoryPressure = false } else { configuration.memoryPressureFile = file }
        }
        configuration.watermark = WatermarkSource.first(
            data: try EnvironmentFallback.value(watermarkData, flag: "watermark-data"),
            path: try EnvironmentFallback.value(watermarkPath, flag: "watermark-path"),
            url: try EnvironmentFallback.value(watermarkUrl, flag: "watermark-url"))
        if let opacity = try EnvironmentFallback.given(watermarkOpacity, flag: "watermark-opacity") {
            guard opacity.value > 0, opacity.value <= 1 else {
                throw opacity.failure("--watermark-opacity must be above 0 and at most 1")
            }
            configuration.watermarkOpacity = opacity.value
        }
        configuration.adminToken = try EnvironmentFallback.value(adminToken, flag: "admin-token", emptyIsError: true)
        configuration.demo = try EnvironmentFallback.flag(demo, flag: "demo")
        let prefixes = try EnvironmentFallback.list(allowSources, flag: "allow-source")
        if let bad = prefixes.first(where: { !ServeConfiguration.isSourcePrefix($0.value) }) {
            throw bad.failure("--allow-source must be an http or https URL prefix, e.g. https://img.example.com/photos/")
        }
        configuration.allowedSources = prefixes.map(\.value)
        configuration.allowLoopbackSources = try EnvironmentFallback.flag(allowLoopbackSources, flag: "allow-loopback-sources")
        configuration.allowPrivateSources = try EnvironmentFallback.flag(allowPrivateSources, flag: "allow-private-sources")
        configuration.debugRefusals = try EnvironmentFallback.flag(debugRefusals, flag: "debug-refusals")
        configuration.ignoreSetCookie = try EnvironmentFallback.flag(ignoreSetCookie, flag: "ignore-set-cookie")
        if let format = try EnvironmentFallback.given(logFormat, flag: "log-format") {
            guard let parsed = ServeConfiguration.LogFormat(rawValue: format.value) else { throw format.failure("--log-format must be text or json") }
            configuration.logFormat = parsed
        }
        return configuration
    }

    /// `--key`/`--salt` pairs, in order: salts are optional, but when given there is one per key.
    static func keyPairs(keys: [EnvironmentFallback.Given<String>], salts: [EnvironmentFallback.Given<String>]) throws -> [URLSigner.KeyPair] {
        guard salts.isEmpty || salts.count == keys.count else {
            throw Console.Failure(description: "--salt given \(salts.count) time(s) for \(keys.count) --key: give one salt per key, in the same order, or none",
                                  exitCode: Console.Status.usage)
        }
        return try keys.enumerated().map { index, key in
            guard let keyBytes = URLSigner.bytes(fromHex: key.value), !keyBytes.isEmpty else { throw key.failure("--key must be hex digits") }
            guard salts.indices.contains(index) else { return URLSigner.KeyPair(key: keyBytes) }
            guard let saltBytes = URLSigner.bytes(fromHex: salts[index].value) else { throw salts[index].failure("--salt must be hex digits") }
            return URLSigner.KeyPair(key: keyBytes, salt: saltBytes)
        }
    }

    /// `--preset` given, else `THUMBCACHE_PRESETS` in imgproxy's `a=...,b=...` form; a bad preset is a usage error.
    static func presets(_ given: [String]) throws -> Presets {
        do {
            if !given.isEmpty { return try Presets(definitions: given) }
            if let list = ProcessInfo.processInfo.environment["THUMBCACHE_PRESETS"], !list.isEmpty { return try Presets(list: list) }
            return Presets()
        } catch {
            throw Console.Failure(description: "\(given.isEmpty ? "THUMBCACHE_PRESETS" : "--preset"): \(error)", exitCode: Console.Status.usage)
        }
    }

    /// Seconds from a flag or its variable, within `ServeConfiguration.seconds` (or 0, with `allowingZero`).
    private static func duration(_ given: Double?, _ flag: String, allowingZero: Bool = false) throws -> Duration? {
        guard let seconds = try EnvironmentFallback.given(given, flag: flag) else { return nil }
        let range = ServeConfiguration.seconds
        guard seconds.value.isFinite, range.contains(seconds.value) || (allowingZero && seconds.value == 0) else {
            throw seconds.failure("--\(flag) must be \(allowingZero ? 0 : range.lowerBound)-\(Int(range.upperBound)) seconds")
        }
        return .milliseconds(Int64(seconds.value * 1000))
    }
}
