import Foundation
import ImageDecode
import Processing

/// The one request path for every rendition, both grammars alike: memory, then disk (a ladder thumbnail in the
/// source's entry, or a variant in `variants/`), then the origin settled and one render (`ProcessedRenderer`), kept
/// where its description says (`Rendition.ladderSize(in:)`).
extension ThumbnailPipeline {
    /// What `rendition` makes of `source`: the one entry point a server calls for either grammar. `format`: the
    /// format the request names (else the options'). `accepted`: the formats its `Accept` names that the server
    /// takes from it (`FormatRequest.accepted`): enforced over a named format, else preferred to the default one,
    /// whose answer is then the default format when that is smaller (`FormatFallback`), cached apart from requests
    /// that name a format; which one answers is decided from the source (`Rendition.outputFormat`). `lookingIn`:
    /// the caches to ask first (a server that has just asked `memoryHit` and `diskHit` passes `[]`).
    public func result(for source: ImageSource, _ rendition: Rendition, format: ImageFormat? = nil, accepted: [ImageFormat] = [],
                       policy: FetchPolicy = .normal, lookingIn lookup: CacheLookup = .all) async throws(PipelineError) -> ThumbnailResult {
        if let thumbnail = rendition.thumbnail, !(1...ThumbnailRequest.maxSize).contains(thumbnail.size) {
            throw .invalidSize(thumbnail.size)
        }
        if configuration.readOnly { throw .cache(.readOnly(directory: store.directoryPath)) }
        let source = keyed(source)
        let key = source.cacheKey
        let request = FormatRequest(named: format ?? rendition.options.format, accepted: accepted)
        let memoryKey = Self.memoryKey(key, rendition, request)
        if lookup.contains(.memory), policy != .refresh, let result = memoryHit(memoryKey, acceptingStale: policy == .offline) { return result }
        if lookup.contains(.disk), policy == .normal,
           let result = diskHit(source, rendition, request, memoryKey: memoryKey) { return result }
        return try await settled(source, key: key, memoryKey: memoryKey, policy: policy) { origin in
            try await self.render(origin, source: source, key: key, rendition, request)
        }
    }

    /// A thumbnail of the short grammar: `result(for: source, .thumbnail(size: size, fit: fit))`.
    public func thumbnail(for source: ImageSource, size: Int, fit: FitMode = .contain, format: ImageFormat? = nil,
                          accepted: [ImageFormat] = [], policy: FetchPolicy = .normal) async throws(PipelineError) -> ThumbnailResult {
        try await result(for: source, .thumbnail(size: size, fit: fit), format: format, accepted: accepted, policy: policy)
    }

    /// An image processed by imgproxy's `options` (`thumbcache get --options`): `result(for: source, .processed(…))`.
    /// `format` nil: the options' format, else the source's when it is a preferred format
    /// (`PipelineConfiguration.preferredFormats`), else the first preferred format that keeps its animation and
    /// transparency.
    public func processed(for source: ImageSource, options: ProcessingOptions, format: ImageFormat? = nil,
                          accepted: [ImageFormat] = [], policy: FetchPolicy = .normal) async throws(PipelineError) -> ThumbnailResult {
        try await result(for: source, .processed(CanonicalOptions(options)), format: format, accepted: accepted, policy: policy)
    }

    /// The rendition from the memory cache if it is there and its source still fresh, without suspending: a server
    /// answers these before it sets up a request's deadline (two tasks and a timer per request).
    public func memoryHit(for source: ImageSource, _ rendition: Rendition, format: ImageFormat? = nil,
                          accepted: [ImageFormat] = []) -> ThumbnailResult? {
        guard !configuration.readOnly else { return nil }
        let request = FormatRequest(named: format ?? rendition.options.format, accepted: accepted)
        return memoryHit(Self.memoryKey(keyed(source).cacheKey, rendition, request), acceptingStale: false)
    }

    /// The rendition read from disk when its source's entry is fresh and it is stored, without suspending: no
    /// coalescing, no task, only its value opened and its bytes read once the entry's metadata is known
    /// (`KnownEntries`, `SnapshotMemo`). Nil for anything else (stale, not stored, an error): `result` answers those.
    /// With `.residentOnly`, only bytes already in the page cache are read (nil rather than wait for the disk), for
    /// a caller that must not block, an event loop; opening the value file may still touch the disk for an inode
    /// not in memory.
    public func diskHit(for source: ImageSource, _ rendition: Rendition, format: ImageFormat? = nil, accepted: [ImageFormat] = [],
                        read: DiskRead = .waiting) -> ThumbnailResult? {
        let request = FormatRequest(named: format ?? rendition.options.format, accepted: accepted)
        let source = keyed(source)
        return diskHit(source, rendition, request, memoryKey: Self.memoryKey(source.cacheKey, rendition, request), read: read)
    }

    static func memoryKey(_ key: String, _ rendition: Rendition, _ request: FormatRequest) -> String {
        "\(key)/" + rendition.memoryKeySuffix(request)
    }

    /// The answer's format for `request` from this source (`Rendition.outputFormat`, with the server's preferred
    /// formats and animation limit).
    func outputFormat(_ rendition: Rendition, _ request: FormatRequest, original: CacheMetadata.Original) -> FormatDecision {
        rendition.outputFormat(request, original: original, preferred: configuration.preferredFormats,
                               limits: animationLimits(rendition.options))
    }

    /// The frames a render for `options` may keep: the server's limit, lowered by the URL's (`SourceLimits`).
    private func animationLimits(_ options: ProcessingOptions) -> RenderLimits {
        RenderLimits(maxAnimationFrames: SourceLimits(configuration: configuration, options: options).maxAnimationFrames)
    }

    /// How an answer that is the source itself is made: as fetched (`raw`, `skp` naming the source's format, an SVG
    /// when sanitising is off), or sanitised (an SVG passed through or skipped: imgproxy sanitises whatever SVG it
    /// answers unprocessed, but not `raw`'s). Nil: the answer is rendered.
    enum Unrendered { case asFetched, sanitised }

    func unrendered(_ rendition: Rendition, _ request: FormatRequest, original: CacheMetadata.Original) -> Unrendered? {
        let options = rendition.options
        guard let source = ImageFormat(rawValue: original.format) else { return nil }
        // `skp` naming the source's format when the URL asks for no other (imgproxy: `f:`/the extension unset or
        // the source's; a format negotiated from `Accept` does not stop the skip).
        let skips = options.skipProcessing.contains(source) && (options.format ?? source) == source
        // An SVG asked as SVG, or with no format named (imgproxy's rule): the source, sanitised, never rasterised.
        let passes = rendition.passesThrough(named: request.named, original: original,
                                             alwaysRasterize: configuration.alwaysRasterizeSVG)
        guard options.raw || skips || passes else { return nil }
        return source == .svg && !options.raw && configuration.sanitizeSVG ? .sanitised : .asFetched
    }

    /// The variant a sanitised SVG is stored as: one per source, since whatever the options it is the same document,
    /// and one per sanitiser version, so a sanitiser that cuts more is not bypassed by what an older one stored.
    static let sanitisedSVGVariant = "svg sanitised v\(SVGSanitizer.version)"

    /// The name a variant is stored under: its meaning (canonical description, the format it is written in, and
    /// when that was preferred from `Accept` the fallback format: `FormatFallback`), their default qualities, and the other
    /// server settings it was drawn under (the watermark's image and opacity where it draws one, metadata defaults
    /// other than imgproxy's, animation limits other than the defaults where an animation may be kept), so a changed
    /// setting renders again rather than serving the old image.
    func variantName(_ rendition: Rendition, _ request: FormatRequest, original: CacheMetadata.Original) -> String {
        // Not a render's name: a render of these options in the format decided is another image.
        if unrendered(rendition, request, original: original) == .sanitised { return Self.sanitisedSVGVariant }
        let quality = configuration.formatQuality
        let decision = outputFormat(rendition, request, original: original)
        var settings = ""
        if rendition.options.watermark.isVisible, let watermark = configuration.watermarkIdentity { settings += " wm \(watermark)" }
        let metadata = configuration.metadata
        if metadata != MetadataPolicy() {
            settings += " md \(metadata.stripMetadata ? 1 : 0)\(metadata.keepCopyright ? 1 : 0)\(metadata.stripColorProfile ? 1 : 0)"
        }
        // The frames an animation keeps are the server's choice (a URL's own limits are in its canonical form):
        // another limit is another image.
        let animation = (configuration.maxAnimationFrames, configuration.maxAnimationFrameResolution)
        if animation != (RenderLimits.defaultMaxAnimationFrames, 0),
           original.mayKeepAnimation(rendition.options, in: decision.format,
                                     limits: animationLimits(rendition.options)) {
            settings += " anim \(animation.0) \(animation.1)"
        }
        // Named by the format decided, so every request that gets this image shares it (a URL naming no format and
        // one naming the format it gets; an enforced format and the same named), and a changed preferred-formats
        // setting names another image.
        return VariantStore.name(canonical: rendition.key(format: decision.format, negotiated: decision.fallback != nil),
                                 format: decision.format, quality: quality[decision.format],
                                 fallback: decision.fallback.map { ($0, quality[$0]) })
            + settings
    }

    /// A stored rendition whose source entry is fresh, kept in memory from now on (`source` already keyed).
    private func diskHit(_ source: ImageSource, _ rendition: Rendition, _ request: FormatRequest,
                         memoryKey: String, read: DiskRead = .waiting) -> ThumbnailResult? {
        let key = source.cacheKey
        // A download held for storing is newer than the entry (`UnstoredOriginals`): the full path serves it.
        guard !configuration.readOnly, !rendition.options.raw, unstored.origin(for: key) == nil else { return nil }
        let started = ContinuousClock.now
        var result: ThumbnailResult
        let freshUntil: Date
        if let size = rendition.ladderSize(in: store.ladder) {
            guard let hit = try? store.storedThumbnail(key: key, size: size, now: Date(), read: read,
                                                       format: { outputFormat(rendition, request, original: $0) }) else { return nil }
            result = ThumbnailResult(data: hit.data, format: hit.facts.format, width: hit.facts.width, height: hit.facts.height,
                                     servedFrom: .disk, source: source.normalized, cacheKey: key, bytesDownloaded: 0, rendered: false)
            (result.contentDigest, freshUntil, result.lastModified) = (hit.facts.digest, hit.freshUntil, hit.lastModified)
        } else {
            // The source as fetched is no variant (a render's name would find the render's image).
            guard store.variants != nil, let state = try? store.freshState(key: key, now: Date(), read: read),
                  unrendered(rendition, request, original: state.metadata.original) != .asFetched,
                  let (data, record) = try? store.variant(
                      source: key, name: variantName(rendition, request, original: state.metadata.original),
                      originalDigest: state.metadata.original.digest, read: read),
                  let stored = ImageFormat(rawValue: record.format) else { return nil }
            result = ThumbnailResult(data: data, format: stored, width: record.width, height: record.height, servedFrom: .disk,
                                     source: source.normalized, cacheKey: key, bytesDownloaded: 0, rendered: false)
            (result.contentDigest, freshUntil, result.lastModified) = (record.digest, state.freshUntil, state.lastModified)
        }
        (result.freshUntil, result.fetchDuration, result.renderDuration) = (freshUntil, Duration.zero, started.duration(to: .now))
        memory.set(MemoryEntry(thumbnail: result, freshUntil: freshUntil), forKey: memoryKey, cost: result.data.count)
        sessionStats.withLock { $0.record(.disk) }
        return result
    }

    /// The rendition of a settled origin: the original itself (`raw`, `skp`), the stored rendition, or a render from
    /// the smallest stored ladder thumbnail that stands in for the original (`StandIn`), else from the original.
    func render(_ given: Origin, source: ImageSource, key: String, _ rendition: Rendition,
                _ request: FormatRequest) async throws -> ThumbnailResult {
        let origin = storedSinceSettled(given, key: key)
        let options = rendition.options
        // Stored or not, once this render ends later requests read the entry (or fetch again), not this download.
        defer { if origin.downloaded != nil { unstored.release(key, fetchedAt: origin.metadata.responseTime) } }
        let url = source.normalized
        let downloadedBytes = origin.servedFrom == .network ? origin.downloadedBytes : 0
        let original = origin.metadata.original
        let sourceFormat = ImageFormat(rawValue: original.format)
        let limits = SourceLimits(configuration: configuration, options: options)
        do { try limits.check(original, url: url) } catch {
            // Within the owner's limits, the original serves other requests.
            keepOriginal(of: origin, key: key)
            throw error
        }
        func result(_ data: Data, _ format: ImageFormat, width: Int, height: Int, rendered: Bool, stored: Int = 0,
                    notCachedBecause: String? = nil) -> ThumbnailResult {
            ThumbnailResult(data: data, format: format, width: width, height: height, servedFrom: origin.servedFrom,
                            source: url, cacheKey: key, bytesDownloaded: downloadedBytes, rendered: rendered,
                            bytesStored: stored, staleBecause: origin.staleBecause, notCachedBecause: notCachedBecause)
        }

        if let unrendered = unrendered(rendition, request, original: original), let sourceFormat {
            let answer = try answerUnrendered(unrendered, origin, key: key, url: url,
                                              name: variantName(rendition, request, original: original))
            var made = result(answer.data, sourceFormat, width: original.width, height: original.height,
                              rendered: answer.sanitised, stored: answer.stored, notCachedBecause: answer.notCachedBecause)
            made.contentDigest = answer.digest
            return made
        }

        // Stored already: a ladder thumbnail in the entry (preferred from `Accept`: the one of the two stored to
        // answer), or a variant.
        let ladderSize = rendition.ladderSize(in: store.ladder)
        let decision = outputFormat(rendition, request, original: original)
        let name = variantName(rendition, request, original: original)
        if let entry = origin.entry {
            if let ladderSize, let stored = store.storedFormat(ladderSize, decision, of: entry.metadata),
               let data = try store.thumbnail(ladderSize, format: stored, of: entry), ImageFormat.sniff(data) == stored,
               let info = try? ImageDecoder.probe(.data(data)) {
                return result(data, stored, width: info.orientedWidth, height: info.orientedHeight, rendered: false)
            }
            if ladderSize == nil,
               let (data, record) = try store.variant(source: key, name: name, originalDigest: entry.metadata.original.digest),
               let stored = ImageFormat(rawValue: record.format) {
                var found = result(data, stored, width: record.width, height: record.height, rendered: false)
                found.contentDigest = record.digest
                return found
            }
        }

        // The input: a stored ladder thumbnail when one covers the plan (`StandIn`; it is upright and sRGB, so only
        // when the options orient the source), else the original.
        let chosen = decision.format
        let qualities = configuration.formatQuality
        // Preferred from `Accept`: what the request answers without it, when smaller (`FormatFallback`).
        let fallback = decision.fallback
        let renderLimits = limits.renderLimits(maxDecodeMemory: configuration.maxDecodeMemory,
                                               maxEffectWork: configuration.maxEffectWork)
        do { try limits.checkFrames(original, animated: original.mayKeepAnimation(options, in: chosen, limits: renderLimits), url: url) } catch {
            keepOriginal(of: origin, key: key)
            throw error
        }
        let input: EncodedImage
        var inputIsOriginal = false
        var storedOriginal: StoredOriginal?  // owns the descriptor behind `input`
        let output = StandIn.Output(format: chosen, fallback: fallback,
                                    quality: options.quality(for: chosen, default: { qualities[$0] }))
        // A stored thumbnail keeps no more metadata than the defaults do (`keepsOnlyWhatThumbnailsKeep`); a `trim`
        // reads the original's own pixels, so it never renders from a rung.
        // An animation kept animated reads every frame of the original (a stored thumbnail is one frame).
        if options.autoRotate, options.trim == nil, ladderSize == nil, !original.mayKeepAnimation(options, in: chosen, limits: renderLimits),
           options.metadataPolicy(defaults: configuration.metadata).keepsOnlyWhatThumbnailsKeep,
           let entry = origin.entry,
           let standIn = try standIn(options, output: output, original: entry.metadata.original,
                                     stored: entry.metadata.thumbnails, url: url),
           let data = try store.thumbnail(standIn.size, format: standIn.format, of: entry) {
            input = .data(data)
        } else {
            (input, storedOriginal) = try origin.originalImage(url: url)
            inputIsOriginal = true
        }
        let renderer = ProcessedRenderer(options: options, input: input, inputIsOriginal: inputIsOriginal, original: original,
                                         maxResultSide: configuration.maxResultSide,
                                         limits: renderLimits,
                                         metadata: configuration.metadata, watermark: configuration.watermark)
        let rendered: Thumbnail
        do {
            // The estimate, from the header, is reserved for the decode once it has a worker (the gate, a server's
            // worker limit): renders wait rather than exceed the budget, and renders queued for a worker hold none.
            // Coalesced waiters and stored renditions never reach the gate.
            let needed = try renderer.workingMemory(format: chosen, fallback: fallback)
            renderer.releaseBeforeWaiting()
            defer { FreedMemory.release(afterDecodeOf: needed) }
            rendered = try await cancellable { (cancellation: RenderCancellation) async throws(PipelineError) in
                try await configuration.renderGate.run(reserving: needed, of: configuration.decodeBudget,
                                                       admission: origin.admission) { () throws(PipelineError) in
                    try renderer.render(format: chosen, defaultQuality: { qualities[$0] }, fallback: fallback, url: url,
                                        cancellation: cancellation)
                }
            }
        } catch {
            let failure = (error as? ProcessedRenderer.Failure)?.pipelineError(url: url) ?? Self.pipelineError(error, source: source)
            keepDownload(of: origin, key: key, after: failure)
            throw failure
        }
        withExtendedLifetime(storedOriginal) {}
        let digest = SHA256Digest.hex(bytes: rendered.data)
        let (stored, notCachedBecause) = keep(rendered, digest: digest, of: origin, key: key, ladderSize: ladderSize, name: name)
        var made = result(rendered.data, rendered.format, width: rendered.width, height: rendered.height, rendered: true,
                          stored: stored, notCachedBecause: notCachedBecause)
        made.contentDigest = digest
        return made
    }

    /// The source itself as the answer (`unrendered`), its original stored if just downloaded. A sanitised SVG is
    /// stored as a variant (`sanitisedSVGVariant`), so later requests, after a restart too, read it rather than
    /// sanitise the original again; sanitising counts as a render (`ThumbnailResult.rendered`).
    private func answerUnrendered(_ unrendered: Unrendered, _ origin: Origin, key: String, url: String, name: String) throws
        -> (data: Data, sanitised: Bool, stored: Int, notCachedBecause: String?, digest: String?) {
        let original = origin.metadata.original
        if unrendered == .sanitised, let entry = origin.entry,
           let (data, record) = try store.variant(source: key, name: name, originalDigest: entry.metadata.original.digest) {
            return (data, false, 0, nil, record.digest)
        }
        var data = try origin.originalData(url: url)
        var stored = 0
        var notCachedBecause: String?
        if origin.storable, let downloaded = origin.downloaded {
            do throws(PipelineError) { stored = try saveOriginal(downloaded, of: origin, key: key, thumbnail: nil) } catch {
                notCachedBecause = error.description
            }
        }
        guard unrendered == .sanitised else { return (data, false, stored, notCachedBecause, nil) }
        do throws(ImageDecodeError) { data = try SVGSanitizer.sanitize(data) } catch {
            throw PipelineError.image(url: url, error)
        }
        let digest = SHA256Digest.hex(bytes: data)
        if origin.storable, notCachedBecause == nil {
            let record = VariantStore.Record(source: key, variant: name, format: ImageFormat.svg.rawValue, width: original.width,
                                             height: original.height, digest: digest, originalDigest: original.digest)
            do throws(PipelineError) { stored += try store.saveVariant(data, record: record) } catch {
                notCachedBecause = error.description
            }
        }
        return (data, true, stored, notCachedBecause, digest)
    }

    /// `origin` read from its entry when it is a held download (`UnstoredOriginals`) whose first render has ended
    /// since this request took it: that render stored the original, and perhaps this very rendition. A request that
    /// took the download just before that render ended, and asked for its own render just after (its coalesced
    /// flight gone), would otherwise decode it all again, and a server would count a second render for one source
    /// and size (`LoadTests`). Still held: no render of it has ended, so nothing of it is stored yet.
    func storedSinceSettled(_ origin: Origin, key: String) -> Origin {
        guard origin.entry == nil, origin.downloaded != nil, origin.storable,
              unstored.origin(for: key)?.metadata.responseTime != origin.metadata.responseTime,
              let stored = try? store.entry(forKey: key),
              stored.metadata.original.digest == origin.metadata.original.digest else { return origin }
        var origin = origin
        // As a stored origin: renditions come from the entry, and a new one is added to it, not saved with the original.
        (origin.entry, origin.downloaded) = (stored, nil)
        return origin
    }

    /// Stores a new rendition (with its original, if just downloaded): a ladder thumbnail in the source's entry, in
    /// every format asked for (a negotiated render keeps both its encodings, so later negotiated requests choose
    /// between them from their lengths), anything else as a variant. A failure to store (a full disk) does not fail
    /// the request: the rendition is good, and the result says why it was not cached.
    private func keep(_ rendered: Thumbnail, digest: String, of origin: Origin, key: String, ladderSize: Int?,
                      name: String) -> (stored: Int, notCachedBecause: String?) {
        guard origin.storable else { return (0, nil) }
        let thumbnail = ladderSize.map { StoredThumbnail(size: $0, format: rendered.format, data: rendered.data) }
        let declined = ladderSize.flatMap { size in rendered.declined.map { StoredThumbnail(size: size, format: $0.format, data: $0.data) } }
        let madeFrom = origin.metadata.original.digest
        do throws(PipelineError) {
            var stored = 0
            if let downloaded = origin.downloaded {
                stored = try saveOriginal(downloaded, of: origin, key: key, thumbnail: thumbnail)
            } else if let thumbnail {
                stored = try store.addThumbnail(key: key, madeFrom: madeFrom, thumbnail: thumbnail)
            }
            if let declined { stored += try store.addThumbnail(key: key, madeFrom: madeFrom, thumbnail: declined) }
            if ladderSize == nil {
                let record = VariantStore.Record(source: key, variant: name, format: rendered.format.rawValue,
                                                 width: rendered.width, height: rendered.height, digest: digest, originalDigest: madeFrom)
                stored += try store.saveVariant(rendered.data, record: record)
            }
            return (stored, nil)
        } catch {
            return (0, error.description)
        }
    }

    /// The stored ladder thumbnail that stands in for the original in rendering `options` to `output` (`StandIn`):
    /// the plan's scale of the original is the scale the rung must keep; nil: render from the original.
    func standIn(_ options: ProcessingOptions, output: StandIn.Output, original: CacheMetadata.Original,
                 stored: [CacheMetadata.StoredSize], url: String) throws(PipelineError) -> StandIn? {
        guard original.width > 0, original.height > 0 else { return nil }
        let plan: ProcessingPlan
        do { plan = try options.plan(sourceWidth: original.width, sourceHeight: original.height,
                                     maxResultSide: configuration.maxResultSide, vector: original.isVector) } catch {
            throw .processing(url: url, error)
        }
        return StandIn.choose(scale: max(plan.scaleX, plan.scaleY), output: output, original: original, stored: stored,
                              qualities: configuration.formatQuality)
    }
}
