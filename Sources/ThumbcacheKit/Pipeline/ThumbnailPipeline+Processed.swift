import Foundation
import ImageDecode
import Processing

/// Processed images (imgproxy's options, `Rendition.processed`): the same origin handling, coalescing and memory
/// cache as thumbnails, their own renderer (`ProcessingOptions.render`), and their own disk store (`VariantStore`).
extension ThumbnailPipeline {
    /// What `rendition` makes of `source`: the one entry point a server calls for either grammar. `negotiated`:
    /// `format` was chosen from the request's `Accept`, so the answer is the format the request has without one
    /// when that is smaller (`FormatFallback`), and is cached apart from requests that name `format`.
    public func result(for source: ImageSource, _ rendition: Rendition, format: ImageFormat? = nil, negotiated: Bool = false,
                       policy: FetchPolicy = .normal, lookingIn lookup: CacheLookup = .all) async throws(PipelineError) -> ThumbnailResult {
        switch rendition {
        case let .thumbnail(size, fit):
            try await thumbnail(for: source, size: size, fit: fit, format: format, negotiated: negotiated, policy: policy,
                                lookingIn: lookup)
        case let .processed(processing):
            try await processed(for: source, processing, format: format, negotiated: negotiated, policy: policy,
                                lookingIn: lookup)
        }
    }

    /// The rendition from the memory cache, if there and fresh, without suspending.
    public func memoryHit(for source: ImageSource, _ rendition: Rendition, format: ImageFormat? = nil,
                          negotiated: Bool = false) -> ThumbnailResult? {
        guard !configuration.readOnly else { return nil }
        return memoryHit(Self.memoryKey(keyed(source).cacheKey, rendition, format: format, negotiated: negotiated),
                         acceptingStale: false)
    }

    /// The rendition read from disk when its source's entry is fresh and it is stored there, without suspending
    /// (see `diskHit(for:size:fit:format:waitingForDisk:)`).
    public func diskHit(for source: ImageSource, _ rendition: Rendition, format: ImageFormat? = nil, negotiated: Bool = false,
                        read: DiskRead = .waiting) -> ThumbnailResult? {
        switch rendition {
        case let .thumbnail(size, fit):
            return diskHit(for: source, size: size, fit: fit, format: format, negotiated: negotiated, read: read)
        case let .processed(processing):
            return variantHit(keyed(source), processing, format: format, negotiated: negotiated && format != nil,
                              read: read)
        }
    }

    /// An image processed by imgproxy's `options` (the server's processing URLs; `thumbcache get --options`).
    /// `format` nil: the options' format, else the source's when it can be written (GIF gives PNG). Stored on
    /// disk as a variant of the source (unless variants are kept in memory only), and in memory.
    public func processed(for source: ImageSource, options: ProcessingOptions, format: ImageFormat? = nil,
                          negotiated: Bool = false, policy: FetchPolicy = .normal,
                          lookingIn lookup: CacheLookup = .all) async throws(PipelineError) -> ThumbnailResult {
        try await processed(for: source, CanonicalOptions(options), format: format, negotiated: negotiated, policy: policy,
                            lookingIn: lookup)
    }

    private func processed(for source: ImageSource, _ processing: CanonicalOptions, format: ImageFormat?,
                           negotiated: Bool, policy: FetchPolicy,
                           lookingIn lookup: CacheLookup) async throws(PipelineError) -> ThumbnailResult {
        if configuration.readOnly { throw .cache(.readOnly(directory: store.directoryPath)) }
        let source = keyed(source)
        let key = source.cacheKey
        let format = format ?? processing.options.format
        let negotiated = negotiated && format != nil
        let memoryKey = Self.memoryKey(key, .processed(processing), format: format, negotiated: negotiated)
        if lookup.contains(.memory), policy != .refresh, let result = memoryHit(memoryKey, acceptingStale: policy == .offline) { return result }
        if lookup.contains(.disk), policy == .normal,
           let result = variantHit(source, processing, format: format, negotiated: negotiated) { return result }
        return try await settled(source, key: key, memoryKey: memoryKey, policy: policy) { origin in
            try await self.renderProcessed(origin, source: source, key: key, processing, format: format, negotiated: negotiated)
        }
    }

    static func memoryKey(_ key: String, _ rendition: Rendition, format: ImageFormat?, negotiated: Bool = false) -> String {
        "\(key)/" + rendition.memoryKeySuffix(format: format, negotiated: negotiated && format != nil)
    }

    /// The name a variant is stored under: its meaning (canonical options, the format asked for, negotiated or
    /// not) and the default quality of the format it is encoded in (of a negotiated one's fallback too), so a
    /// changed default renders again rather than serving the old one.
    func variantName(_ processing: CanonicalOptions, format: ImageFormat?, negotiated: Bool, source: ImageFormat?) -> String {
        let (options, quality) = (processing.options, configuration.formatQuality)
        return VariantStore.name(canonical: processing.canonical, asked: (format ?? options.format)?.rawValue ?? "auto",
                                 quality: quality[options.outputFormat(asked: format, source: source)],
                                 fallbackQuality: negotiated ? quality[options.outputFormat(asked: nil, source: source)] : nil)
    }

    /// A stored variant whose source entry is fresh, kept in memory from now on (`source` already keyed). With
    /// `.residentOnly`, nil rather than wait for bytes not in the page cache (an event loop's read).
    private func variantHit(_ source: ImageSource, _ processing: CanonicalOptions, format: ImageFormat?, negotiated: Bool,
                            read: DiskRead = .waiting) -> ThumbnailResult? {
        guard store.variants != nil, !configuration.readOnly, !processing.options.raw else { return nil }
        let key = source.cacheKey
        // A download held for storing is newer than the entry (`UnstoredOriginals`): the full path serves it.
        guard unstored.origin(for: key) == nil,
              let state = try? store.freshState(key: key, now: Date(), read: read),
              let freshUntil = state.freshUntil,
              let (data, record) = try? store.variant(source: key, name: variantName(
                  processing, format: format, negotiated: negotiated, source: ImageFormat(rawValue: state.metadata.original.format)),
                                             originalDigest: state.metadata.original.digest, read: read),
              let stored = ImageFormat(rawValue: record.format) else { return nil }
        var result = ThumbnailResult(data: data, format: stored, width: record.width, height: record.height, servedFrom: .disk,
                                     source: source.normalized, cacheKey: key, bytesDownloaded: 0, rendered: false)
        (result.contentDigest, result.freshUntil, result.lastModified) = (record.digest, freshUntil, state.lastModified)
        (result.fetchDuration, result.renderDuration) = (Duration.zero, Duration.zero)
        memory.set(MemoryEntry(thumbnail: result, freshUntil: freshUntil),
                   forKey: Self.memoryKey(key, .processed(processing), format: format, negotiated: negotiated), cost: data.count)
        sessionStats.withLock { $0.record(.disk) }
        return result
    }

    /// The processed image of a settled origin: the original itself (`raw`, `skp`), the stored variant, or a
    /// render from the smallest stored ladder thumbnail that covers what the plan reads, else from the original.
    private func renderProcessed(_ origin: Origin, source: ImageSource, key: String, _ processing: CanonicalOptions,
                                 format: ImageFormat?, negotiated: Bool) async throws -> ThumbnailResult {
        let options = processing.options
        defer { if origin.downloaded != nil { unstored.release(key, fetchedAt: origin.metadata.responseTime) } }
        let url = source.normalized
        let downloadedBytes = origin.servedFrom == .network ? origin.downloadedBytes : 0
        let original = origin.metadata.original
        let sourceFormat = ImageFormat(rawValue: original.format)
        func result(_ data: Data, _ format: ImageFormat, width: Int, height: Int, rendered: Bool, stored: Int = 0,
                    notCachedBecause: String? = nil) -> ThumbnailResult {
            ThumbnailResult(data: data, format: format, width: width, height: height, servedFrom: origin.servedFrom,
                            source: url, cacheKey: key, bytesDownloaded: downloadedBytes, rendered: rendered,
                            bytesStored: stored, staleBecause: origin.staleBecause, notCachedBecause: notCachedBecause)
        }

        // `raw`, or `skp` naming the source's format when the URL asks for no other (imgproxy: `f:`/the extension
        // unset or the source's; a format negotiated from `Accept` does not stop the skip).
        let skips = sourceFormat.map { options.skipProcessing.contains($0) && (options.format ?? $0) == $0 } == true
        if options.raw || skips, let sourceFormat {
            let data = try origin.originalData(url: url)
            var stored = 0
            var notCachedBecause: String?
            if origin.storable, let downloaded = origin.downloaded {
                do throws(PipelineError) { stored = try saveOriginal(downloaded, of: origin, key: key, thumbnail: nil) } catch {
                    notCachedBecause = error.description
                }
            }
            return result(data, sourceFormat, width: original.width, height: original.height, rendered: false, stored: stored,
                          notCachedBecause: notCachedBecause)
        }

        let name = variantName(processing, format: format, negotiated: negotiated, source: sourceFormat)
        if let entry = origin.entry,
           let (data, record) = try store.variant(source: key, name: name, originalDigest: entry.metadata.original.digest),
           let stored = ImageFormat(rawValue: record.format) {
            var found = result(data, stored, width: record.width, height: record.height, rendered: false)
            found.contentDigest = record.digest
            return found
        }

        // The input: a stored ladder thumbnail when one covers the plan (`StandIn`; it is upright and sRGB, so only
        // when the options orient the source), else the original.
        let chosen = options.outputFormat(asked: format, source: sourceFormat)
        let qualities = configuration.formatQuality
        // Negotiated: what the request answers without `Accept`, when smaller (`FormatFallback`).
        let fallback = negotiated ? options.outputFormat(asked: nil, source: sourceFormat) : nil
        let input: EncodedImage
        var inputIsOriginal = false
        var storedOriginal: StoredOriginal?  // owns the descriptor behind `input`
        let output = StandIn.Output(format: chosen, fallback: fallback,
                                    quality: options.quality(for: chosen, default: { qualities[$0] }))
        if options.autoRotate, let entry = origin.entry,
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
                                         limits: RenderLimits(maxPixels: configuration.maxPixels,
                                                              maxDecodeMemory: configuration.maxDecodeMemory,
                                                              maxEffectWork: configuration.maxEffectWork))
        let rendered: Thumbnail
        do {
            let needed = try renderer.workingMemory()
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
        var stored = 0
        var notCachedBecause: String?
        if origin.storable {
            do throws(PipelineError) {
                if let downloaded = origin.downloaded { stored += try saveOriginal(downloaded, of: origin, key: key, thumbnail: nil) }
                let record = VariantStore.Record(source: key, variant: name, format: rendered.format.rawValue,
                                                 width: rendered.width, height: rendered.height,
                                                 digest: digest, originalDigest: original.digest)
                stored += try store.saveVariant(rendered.data, record: record)
            } catch {
                notCachedBecause = error.description
            }
        }
        var made = result(rendered.data, rendered.format, width: rendered.width, height: rendered.height, rendered: true,
                          stored: stored, notCachedBecause: notCachedBecause)
        made.contentDigest = digest
        return made
    }

    /// The stored ladder thumbnail that stands in for the original in rendering `options` to `output` (`StandIn`):
    /// the plan's scale of the original is the scale the rung must keep; nil: render from the original.
    func standIn(_ options: ProcessingOptions, output: StandIn.Output, original: CacheMetadata.Original,
                 stored: [CacheMetadata.StoredSize], url: String) throws(PipelineError) -> StandIn? {
        guard original.width > 0, original.height > 0 else { return nil }
        let plan: ProcessingPlan
        do { plan = try options.plan(sourceWidth: original.width, sourceHeight: original.height,
                                     maxResultSide: configuration.maxResultSide) } catch {
            throw .processing(url: url, error)
        }
        return StandIn.choose(scale: max(plan.scaleX, plan.scaleY), output: output, original: original, stored: stored,
                              qualities: configuration.formatQuality)
    }
}
