import Foundation
import ImageDecode
import Processing

/// Everything `ThumbnailPipeline` can be tuned by. The defaults need no set-up.
public struct PipelineConfiguration: Sendable {
    /// Holds `CACHEDIR.TAG`, `entries/` (the DiskLru directory), `downloads/` and `stats.json` (see `CacheDirectory`).
    public var cacheDirectory: URL
    public var maxDiskSize: Int64 = 512 << 20
    /// How much of `maxDiskSize` processed images (`Rendition.processed`, in `variants/`) may use; the source
    /// entries use whatever they leave (`SharedDiskBudget`). nil: a quarter. 0: processed images are kept in memory only
    /// (and the variants a run with a share left are deleted at start).
    public var maxVariantDiskSize: Int64?
    /// Download size, timeouts, redirects and connections per origin (`FetchLimits.originals` unless set).
    public var fetchLimits = FetchLimits.originals
    public var ladder = SizeLadder.standard
    public var memoryLimits = MemoryLimits(totalCost: 64 << 20, count: 2000)
    /// Trims the memory cache while the system is short of memory (docs/library.md, "Memory pressure"): the
    /// process's shared monitor by default; nil keeps `memoryLimits` whatever happens.
    public var memoryPressure: MemoryPressureMonitor? = .shared
    /// Encoder quality per output format when a request names none (`--format-quality`); unset formats take
    /// `ImageEncoder.defaultQuality(for:)`. Processed images stored on disk are keyed by the quality of their
    /// format, so a change renders them again; stored ladder thumbnails are kept as they are (docs/disk-layout.md).
    public var formatQuality = FormatQualities()
    /// The JPEG entry of `formatQuality`.
    @available(*, deprecated, message: "use formatQuality (one quality per format)")
    public var jpegQuality: Int {
        get { formatQuality[.jpeg] }
        set { formatQuality.set(newValue, for: .jpeg) }
    }
    /// What renders keep of their source's metadata when a URL does not say (`sm`, `kcr`, `scp`): imgproxy's defaults
    /// (strip, keep the EXIF copyright, strip the colour profile). The short grammar's thumbnails follow it too.
    /// Not part of a stored variant's name: after a change, purge (or let them expire) to have variants made again.
    public var metadata = MetadataPolicy()
    public var maxPixels = 50_000_000
    /// imgproxy's `IMGPROXY_PREFERRED_FORMATS`: what an imgproxy-grammar answer naming no format (and taking none
    /// from `Accept`) is written in: the source's format when listed, else the first listed that keeps its
    /// animation and transparency (`ProcessingOptions.outputFormat`). imgproxy's default: JPEG, PNG, GIF.
    public var preferredFormats = PreferredFormats.imgproxy
    /// imgproxy's `IMGPROXY_ALWAYS_RASTERIZE_SVG`: a processing URL naming no format draws an SVG source (PNG,
    /// or the negotiated format) rather than answering the SVG itself. Off, as imgproxy's default.
    public var alwaysRasterizeSVG = false
    /// imgproxy's `IMGPROXY_SANITIZE_SVG`: an SVG answered as SVG is cleaned of scripts and unsafe links first
    /// (`SVGSanitizer`); `raw` answers the source as it is either way. On, as imgproxy's default.
    public var sanitizeSVG = true
    /// The longest side a processed image may have (after dpr, zoom, enlarge, extend and padding): larger
    /// results are refused from the source's header, before any render.
    public var maxResultSide = 8192
    /// Memory one decode may use (`ThumbnailRequest.maxDecodeMemory`); a source needing more is refused
    /// from its header (`ImageDecodeError.overMemoryBudget`, exit code 6).
    public var maxDecodeMemory = ThumbnailRequest.defaultMaxDecodeMemory
    /// The arithmetic one processed image's filters and detectors may cost (`RenderWork`, in operations): over it
    /// the options are refused from the source's header (`ProcessingError.tooCostly`, a 400 naming the option).
    public var maxEffectWork = RenderLimits.defaultMaxEffectWork
    /// Frames of an animation rendered (`RenderLimits.maxAnimationFrames`; `--max-animation-frames`); 1: first frame only.
    public var maxAnimationFrames = RenderLimits.defaultMaxAnimationFrames
    /// Pixels per animation frame (`RenderLimits.maxAnimationFrameResolution`); 0: the pixel limit counts all frames.
    public var maxAnimationFrameResolution = 0
    /// The server's watermark image, decoded once (`WatermarkSource.load`), drawn where a URL's `watermark` option
    /// asks; nil: `watermark` draws nothing (imgproxy without a configured watermark).
    public var watermark: WatermarkImage? {
        didSet { watermarkIdentity = watermark.map(Self.identity(of:)) }
    }
    /// A digest of the watermark's pixels and opacity, worked out once: part of the name of every variant that draws
    /// it, so another image or opacity after a restart renders again rather than serving the old mark.
    package private(set) var watermarkIdentity: String?
    /// Bounds the decode memory of all renders at once: each reserves its estimate before decoding. The
    /// process-wide budget (512 MiB) unless given one, so pipelines of one process share it.
    public var decodeBudget = DecodeBudget.shared
    /// When revalidating a stale entry fails with a network error or a 500, 502, 503 or 504, serve the stale
    /// thumbnail anyway if it is at most this much past its freshness (RFC 5861's stale-if-error, asked for by
    /// the client). nil: such a failure is an error, as in OkHttp, unless the response itself carried
    /// `stale-if-error`. Never overrides the origin's `must-revalidate` or `no-cache`.
    public var staleIfError: Duration?
    /// PEM files of certificate authorities to trust for https origins, beside the system's (an internal
    /// origin signed by a private CA). Read when the pipeline opens, so a bad file fails at once.
    public var trustedCAFiles: [String] = []
    /// Which sources may be fetched, checked on every redirect hop and on the address connected to (see
    /// `SourcePolicy`). Default: any, as the CLI; a server fetching URLs its clients name restricts it.
    public var sourcePolicy = SourcePolicy.unrestricted
    /// A private cache (the CLI, an app: the default) or a shared one (a server), which keeps nothing the origin
    /// marked `private` or that sets a cookie, and reads `s-maxage` (see `CacheRole`).
    public var cacheRole = CacheRole.privateCache
    /// How a source's URL becomes its cache key (`CacheKeyRule`): e.g. presigned URLs of one object sharing one
    /// entry by ignoring their signature's query parameters. Every pipeline call keys its source by it.
    public var cacheKeyRule = CacheKeyRule.exact
    /// Resolves host names for the address check in place of the system's resolver (tests).
    var hostResolver: (any HostResolver)?
    /// Bounds concurrent renders (a server's `--workers` and `--queue`); default: no bound, as the CLI.
    package var renderGate: any RenderGate = UnboundedRenderGate()
    /// How long to wait for another process holding the cache directory.
    public var lockTimeout: Duration = .seconds(300)
    /// When the cache directory lock is held (see `LockMode`).
    public var lockMode = LockMode.perAccess
    /// DiskLru trims (and compacts) inside the commit that needs it rather than on its background queue
    /// (`DiskLruOptions.Cleanup.inline`), so which entry a lookup finds never depends on when a queue ran.
    /// For checks against a model (scripts/cluster-evict-check.sh sets `THUMBCACHE_INLINE_TRIM=1` for its
    /// `serve` nodes); the variable is read here only. Costs the committing request the trim's deletes.
    public var inlineDiskTrim = ProcessInfo.processInfo.environment["THUMBCACHE_INLINE_TRIM"] == "1"
    /// Only look (`thumbcache info`, `stats`): nothing is created, locked, written or deleted, a missing
    /// directory is an empty cache, and `thumbnail(for:)` is refused.
    public var readOnly = false

    /// How processes share the cache directory.
    public enum LockMode: Sendable, Equatable {
        /// The lock is taken for each cache access and released during downloads and decodes, so processes
        /// sharing the directory (parallel `thumbcache get`s) work at the same time; each access checks whether
        /// another process changed the journal and rereads it if so.
        case perAccess
        /// The lock is held from open to close: one process owns the directory and never rereads the journal
        /// (a long-running server); others wait up to `lockTimeout`.
        case holdForLifetime
    }

    public init(cacheDirectory: URL) {
        self.cacheDirectory = cacheDirectory
    }

    /// `$XDG_CACHE_HOME/thumbcache`, else `~/.cache/thumbcache`.
    public static var defaultCacheDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("thumbcache")
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/thumbcache")
    }

    static func identity(of watermark: WatermarkImage) -> String {
        let pixels = watermark.pixels
        let header = "\(pixels.width)x\(pixels.height)x\(pixels.channels) opacity \(watermark.opacity)\n"
        return String(SHA256Digest.hex(bytes: Array(header.utf8) + pixels.pixels).prefix(16))
    }
}

/// An encoded thumbnail held in memory, with the time its source stops being fresh.
public struct MemoryEntry: Sendable {
    public let thumbnail: ThumbnailResult
    public let freshUntil: Date

}
