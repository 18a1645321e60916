import Foundation
import ImageDecode
import Processing
import ThumbcacheKit

/// Everything `thumbcache serve` is configured by (flags and `THUMBCACHE_*` variables, see `ServeCommand`).
package struct ServeConfiguration: Sendable {
    package enum LogFormat: String, Sendable, CaseIterable {
        case text, json
    }

    package var host = "127.0.0.1"
    package var port = 8080
    /// Serve `/metrics` on this port instead of the main one (nil: the main port).
    package var metricsPort: Int?
    /// HMAC key and salt; nil key: signing off (the signature segment must be `unsafe`).
    package var key: Data?
    package var salt = Data()
    /// More key/salt pairs whose signatures are accepted too, so a key can be rotated without downtime (`--key`
    /// and `--salt` given several times); `key`/`salt` is the pair that signs.
    package var additionalKeys: [URLSigner.KeyPair] = []
    /// imgproxy's `IMGPROXY_SIGNATURE_SIZE`: signatures are the HMAC's first this many bytes (1-32).
    package var signatureSize = 32
    /// imgproxy's `IMGPROXY_TRUSTED_SIGNATURES`: signature segments accepted for any path, without an HMAC check.
    package var trustedSignatures: [String] = []
    /// Named option lists for processing URLs (`pr:NAME`); one named `default` applies to every processing URL.
    package var presets = Presets()
    /// Processing URLs may hold presets only: a finite set of images per source, which nobody can fill the cache
    /// with variants of.
    package var onlyPresets = false
    /// imgproxy's `IMGPROXY_ALLOWED_PROCESSING_OPTIONS`: the option names (as spelled in the URL) a processing URL
    /// may hold; empty: any. Presets may use any.
    package var allowedProcessingOptions: [String] = []
    /// imgproxy's `IMGPROXY_BASE64_URL_INCLUDES_FILENAME`: a base64 source split by "/" ends with a filename, dropped.
    package var base64URLIncludesFilename = false
    /// Allows a non-loopback bind without a key: an open image proxy.
    package var allowUnsigned = false
    /// The server's hard limit: the short grammar's largest size and the longest side of any processed image (a
    /// larger result is refused, whatever `max_result_dimension` says).
    package var maxSize = 2048
    /// imgproxy's `IMGPROXY_MAX_RESULT_DIMENSION`: processing URLs that name no `max_result_dimension` are scaled
    /// down to fit it; 0: none. At most `maxSize`.
    package var maxResultDimension = 0
    /// imgproxy's `IMGPROXY_ALLOW_SECURITY_OPTIONS`: URLs may name `max_result_dimension`, `max_src_resolution`
    /// and `max_src_file_size` (else a 403).
    package var allowSecurityOptions = false
    /// imgproxy's `IMGPROXY_LOCAL_FILESYSTEM_ROOT`: `local:///path` sources are the files under this directory;
    /// nil: `local://` is refused.
    package var localRoot: String?
    /// imgproxy's `IMGPROXY_BASE_URL`: prepended to every source that does not start with it.
    package var sourceBaseURL: String?
    /// imgproxy's `IMGPROXY_PATH_PREFIX`: thumbnail paths (both grammars) start with it; nil: none.
    package var pathPrefix: String?
    /// imgproxy's `IMGPROXY_ENABLE_CLIENT_HINTS`: processing URLs take dpr and width from the client hints.
    package var clientHints = false
    /// imgproxy's `IMGPROXY_ENFORCE_WEBP`/`_AVIF`/`_JXL`: a named format gives way to WebP/AVIF/JPEG XL when
    /// `Accept` names it (AVIF and JPEG XL not for an animation).
    package var enforceWebP = false
    package var enforceAVIF = false
    package var enforceJXL = false
    /// imgproxy's `IMGPROXY_AUTO_JXL`: a URL naming no format is JPEG XL when `Accept` names it (before AVIF and
    /// WebP, which are always preferred so; not for an animation).
    package var autoJXL = false
    /// imgproxy's `IMGPROXY_SKIP_PROCESSING_FORMATS`: sources in these formats are answered as they are by every
    /// processing URL that keeps their format (a server-wide `skip_processing`).
    package var skipProcessingFormats: [ImageFormat] = []
    /// Bounds of the `max-age` sent: the source's remaining freshness, clamped.
    package var minTTL = 60
    package var maxTTL = 31_536_000
    package var workers = ProcessInfo.processInfo.activeProcessorCount
    package var queue = 64
    package var timeout: Duration = .seconds(10)
    package var shutdownTimeout: Duration = .seconds(20)
    /// After SIGTERM, how long new connections are still accepted and answered 503 (`/healthz` too, so a load
    /// balancer sees the drain), before the server stops accepting and finishes what is in flight.
    package var drainTimeout: Duration = .seconds(5)
    /// Enables `POST /admin/purge/<source>` with `Authorization: Bearer <token>`.
    /// The watermark image a URL's `watermark` option draws (`--watermark-data`/`-path`/`-url`), loaded at start-up
    /// by `watermarkImage(pipeline:)` into the pipeline's configuration; nil: `watermark` draws nothing.
    package var watermark: WatermarkSource?
    /// Multiplies every URL's watermark opacity (imgproxy's `IMGPROXY_WATERMARK_OPACITY`).
    package var watermarkOpacity = 1.0
    package var adminToken: String?
    /// Enables `/demo`, its sample images and its reset route (and loopback sources, for the samples).
    package var demo = false
    package var allowedSources: [String] = []
    package var allowLoopbackSources = false
    package var allowPrivateSources = false
    /// Store origin answers that set a cookie (nginx's `proxy_ignore_headers Set-Cookie`); by default a shared
    /// cache does not (`CacheRole`). The cookie itself is never stored or passed on.
    package var ignoreSetCookie = false
    /// 403s for refused sources say why in full, with the addresses the host resolved to (`ServeError`): for
    /// debugging a source policy, never on a public server.
    package var debugRefusals = false
    package var logFormat = LogFormat.text
    /// Open connections at most; more wait in the listen backlog.
    package var maxConnections = 1024
    /// A connection that sends nothing for this long is closed.
    package var idleTimeout: Duration = .seconds(30)
    /// A request head must arrive whole within this long of the connection opening (or of the previous
    /// response): a client that sends its headers slowly is cut.
    package var headerTimeout: Duration = .seconds(10)

    /// Whether `WireHitHandler` answers memory hits from the request's bytes; off only in tests, which compare
    /// its answers with the router's.
    var answersHitsFromBytes = true

    /// Whether the memory cache shrinks while the machine is short of memory (`MemoryPressureMonitor`).
    package var watchesMemoryPressure = true
    /// A PSI file to watch in place of the library's automatic choice (`MemoryPressureSources.automatic()`: PSI,
    /// else cgroup usage, else meminfo); nil: the automatic choice, through the process's shared monitor.
    package var memoryPressureFile: String?

    /// The monitor that trims the pipeline's memory cache, by `watchesMemoryPressure` and `memoryPressureFile`.
    package var memoryPressureMonitor: MemoryPressureMonitor? {
        guard watchesMemoryPressure else { return nil }
        guard let memoryPressureFile else { return .shared }
        var configuration = MemoryPressureConfiguration()
        configuration.source = PressureStallSource(files: [URL(fileURLWithPath: memoryPressureFile)])
        return MemoryPressureMonitor(configuration: configuration)
    }

    package init() {}

    /// Every pair that verifies signatures, the signing one first.
    var signingKeys: [URLSigner.KeyPair] {
        guard let key else { return [] }
        return [URLSigner.KeyPair(key: key, salt: salt)] + additionalKeys
    }

    // The accepted range of each numeric setting: `thumbcache serve` checks its flags and variables against
    // them (exit 64), `problem()` a configuration built in code.
    package static let ports = 0...65535
    package static let sizes = 1...ThumbnailRequest.maxSize
    /// RFC 9111 §1.2.2: caches need not take a delta-seconds above 2^31.
    package static let ttls = 0...2_147_483_647
    package static let workerCounts = 1...4096
    package static let queueLengths = 0...1_000_000
    package static let connectionCounts = 1...1_000_000
    /// Durations in seconds: at least a millisecond, below 31 years.
    package static let seconds = 0.001...1e9

    /// Whether `prefix` can be an `--allow-source` prefix: an http or https URL (`SourcePolicy` reads an
    /// unparsable one as allowing nothing, which would refuse every source).
    package static func isSourcePrefix(_ prefix: String) -> Bool {
        (try? ThumbcacheEndpoints.source(prefix)) != nil
    }

    /// The local root as the policy and the sources use it: absolute, symbolic links resolved (nil without one).
    var resolvedLocalRoot: String? {
        localRoot.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path }
    }

    /// The check's request-level settings.
    var checkRules: ThumbnailChecks.Rules {
        var rules = ThumbnailChecks.Rules()
        rules.maxResultDimension = maxResultDimension
        rules.allowSecurityOptions = allowSecurityOptions
        rules.clientHints = clientHints
        rules.allowedOptions = allowedProcessingOptions.isEmpty ? nil : Set(allowedProcessingOptions)
        rules.skipProcessingFormats = Set(skipProcessingFormats)
        rules.pathPrefix = pathPrefix
        rules.base64URLIncludesFilename = base64URLIncludesFilename
        // imgproxy's order: JPEG XL, then AVIF, then WebP.
        rules.enforced = (enforceJXL ? [ImageFormat.jxl] : []) + (enforceAVIF ? [.avif] : []) + (enforceWebP ? [.webp] : [])
        // Enforcing a format prefers it too (imgproxy's clientfeatures detector).
        rules.preferred = (autoJXL || enforceJXL ? [ImageFormat.jxl] : []) + [.avif, .webp]
        rules.sources = SourceNames(baseURL: sourceBaseURL, localRoot: resolvedLocalRoot)
        return rules
    }

    /// Why the request-level settings cannot be used, or nil.
    private func requestSettingsProblem() -> String? {
        if !(0...maxSize).contains(maxResultDimension) {
            return "--max-result-dimension must be 0 (none) to --max-size (\(maxSize)): a larger result is refused anyway"
        }
        if let localRoot {
            var isDirectory: ObjCBool = false
            guard localRoot.hasPrefix("/"), FileManager.default.fileExists(atPath: localRoot, isDirectory: &isDirectory),
                  isDirectory.boolValue else {
                return "--local-root \(localRoot): must be the absolute path of an existing directory"
            }
            if resolvedLocalRoot == "/" {
                return "--local-root /: would serve every file on the machine; name the directory of the images"
            }
        }
        if let base = sourceBaseURL {
            let local = base.lowercased().hasPrefix(SourceNames.localScheme)
            if local ? localRoot == nil : !Self.isSourcePrefix(base) {
                return "--source-base-url \(base): must be an http or https URL prefix (e.g. https://img.example.com/), "
                    + "or local:/// with --local-root"
            }
        }
        if let unknown = allowedProcessingOptions.first(where: { OptionName(spelling: $0) == nil && !["pr", "preset"].contains($0) }) {
            return "--allowed-processing-options names \"\(unknown)\", which is no processing option: list names as URLs "
                + "spell them (e.g. w,h,rs,pr; docs/processing.md)"
        }
        if let pathPrefix, pathPrefix.count < 2 || !pathPrefix.hasPrefix("/") || pathPrefix.hasSuffix("/")
            || pathPrefix.contains(where: { $0 == "?" || $0 == "#" || $0 == "%" || $0 == " " }) {
            return "--path-prefix \(pathPrefix): must be a path such as /imgproxy: one leading \"/\", none at the end, "
                + "no ?, #, % or spaces"
        }
        if !allowSecurityOptions, let name = presets.firstSecurityOption() {
            return "a preset sets \(name), a security option: pass --allow-security-options, or remove it from the preset"
        }
        return nil
    }

    /// Why this configuration must not start, or nil.
    package func problem() -> String? {
        if let problem = requestSettingsProblem() { return problem }
        if !URLSigner.signatureSizes.contains(signatureSize) {
            return "--signature-size must be \(URLSigner.signatureSizes.lowerBound)-\(URLSigner.signatureSizes.upperBound) bytes "
                + "(HMAC-SHA256 has 32; imgproxy's IMGPROXY_SIGNATURE_SIZE)"
        }
        if let bad = trustedSignatures.first(where: { $0.isEmpty || $0.contains("/") || $0 == URLSigner.unsigned }) {
            return "--trusted-signature \"\(bad)\": must be one non-empty path segment other than \(URLSigner.unsigned) "
                + "(no \"/\"), as it is sent in place of the signature"
        }
        if key == nil && !allowUnsigned && !Self.isLoopback(host) {
            return "refusing to serve unsigned URLs on \(host): without --key anyone can use it as an open image proxy; "
                + "set --key and --salt, bind to 127.0.0.1, or pass --allow-unsigned"
        }
        if !Self.ports.contains(port) || !(metricsPort.map { Self.ports.contains($0) } ?? true) {
            return "--port and --metrics-port must be \(Self.ports.lowerBound)-\(Self.ports.upperBound)"
        }
        // Both on one address: the second bind would fail after the first was announced (0 picks two free ports).
        if let metricsPort, metricsPort != 0, metricsPort == port {
            return "--port and --metrics-port (THUMBCACHE_PORT, THUMBCACHE_METRICS_PORT) are both \(port): give /metrics "
                + "a port of its own, or leave --metrics-port out to serve /metrics on --port"
        }
        if !Self.ttls.contains(minTTL) || !Self.ttls.contains(maxTTL) || maxTTL < minTTL {
            return "--min-ttl and --max-ttl must be \(Self.ttls.lowerBound)-\(Self.ttls.upperBound), --min-ttl at most --max-ttl"
        }
        if !Self.sizes.contains(maxSize) { return "--max-size must be \(Self.sizes.lowerBound)-\(Self.sizes.upperBound)" }
        if !Self.workerCounts.contains(workers) { return "--workers must be \(Self.workerCounts.lowerBound)-\(Self.workerCounts.upperBound)" }
        if !Self.queueLengths.contains(queue) { return "--queue must be \(Self.queueLengths.lowerBound)-\(Self.queueLengths.upperBound)" }
        if !Self.connectionCounts.contains(maxConnections) {
            return "--max-connections must be \(Self.connectionCounts.lowerBound)-\(Self.connectionCounts.upperBound)"
        }
        if let prefix = allowedSources.first(where: { !Self.isSourcePrefix($0) }) {
            return "--allow-source \(prefix): must be an http or https URL prefix"
        }
        if adminToken?.isEmpty == true { return "--admin-token must not be empty" }
        if onlyPresets && presets.isEmpty {
            return "--only-presets without any --preset (or THUMBCACHE_PRESETS) would refuse every processing URL: "
                + "define presets with --preset NAME=OPTIONS, or leave --only-presets out"
        }
        if clientHints && onlyPresets {
            // A hint header sets the width and dpr of any URL, which is the free sizing --only-presets closes.
            return "--client-hints lets a request's headers choose any width and dpr, which --only-presets forbids: "
                + "leave one of them out (or give the presets for each width)"
        }
        if demo && onlyPresets {
            return "--demo asks for any size in the short grammar, which --only-presets refuses: leave one of them out"
        }
        if demo && !allowLoopbackSources && !Self.isLoopback(host) {
            // The demo fetches its samples from this server over loopback, which opens loopback sources.
            return "--demo opens loopback sources (it fetches its samples from this server): bind it to 127.0.0.1, "
                + "or pass --allow-loopback-sources to accept that on \(host)"
        }
        return nil
    }

    /// The source policy: refused addresses unless opened, the prefixes, and loopback for the demo's samples.
    package var sourcePolicy: SourcePolicy {
        SourcePolicy(allowedPrefixes: allowedSources, allowLoopback: allowLoopbackSources || demo,
                     allowPrivate: allowPrivateSources, localRoot: resolvedLocalRoot)
    }

    /// The configured watermark, read and decoded: a URL is fetched as sources are (this server's source policy,
    /// `pipeline`'s fetch limits and trust roots). Called once, before the service starts; nil without one.
    package func watermarkImage(pipeline: PipelineConfiguration) async throws(WatermarkError) -> WatermarkImage? {
        guard let watermark else { return nil }
        var pipeline = pipeline
        pipeline.sourcePolicy = sourcePolicy
        return try await watermark.load(opacity: watermarkOpacity, configuration: pipeline)
    }

    /// The bind address is loopback: `localhost`, or an address the source checks classify as loopback
    /// (one classifier for both, so `127.1`-style spellings and `::1` agree).
    static func isLoopback(_ host: String) -> Bool {
        let bare = bindAddress(host)
        return bare == "localhost" || IPAddress(bare)?.kind == .loopback
    }

    /// The address to bind: `[::1]` as in a URL is `::1` to NIO.
    package static func bindAddress(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }
}
