import Foundation

extension ThumbnailPipeline {
    // MARK: - Origin

    /// The origin question for `source` settled once for all its concurrent callers (`origins`): a download
    /// held unstored, the stored entry (fresh, or revalidated), or a new download.
    func settledOrigin(_ source: ImageSource, key: String, policy: FetchPolicy) async throws -> Origin {
        try await origins.value(for: "\(key)|\(policy.rawValue)") {
            // Downloaded by an earlier flight and not stored yet: that download, not another one.
            if let held = self.unstored.origin(for: key),
               case .serveStored = self.strategy.decide(held.metadata, policy: policy, now: Date()) {
                return held
            }
            let started = ContinuousClock.now
            var origin = try await self.resolveOrigin(source, key: key, policy: policy)
            origin.fetchDuration = started.duration(to: .now)
            self.unstored.hold(origin, for: key)
            return origin
        }
    }

    func resolveOrigin(_ source: ImageSource, key: String, policy: FetchPolicy) async throws(PipelineError) -> Origin {
        var stored = try store.entry(forKey: key)
        if let damaged = stored, !damaged.originalIsIntact {
            // Shorter than recorded, or not a readable file: it would fail every new size (and a 304 would keep
            // it), so the entry goes and the source is fetched whole.
            damaged.snapshot.close()
            removeEntry(key)
            stored = nil
        }
        let decision = strategy.decide(stored?.metadata, policy: policy, now: Date())
        if let stored, case .serveStored(let freshUntil) = decision {
            return Origin(metadata: stored.metadata, servedFrom: .disk, downloaded: nil, downloadedBytes: 0, entry: stored,
                          freshUntil: freshUntil)
        }
        if case .offlineMiss = decision { throw .offlineMiss(url: source.normalized) }
        let conditional = decision.conditionalHeaders
        // Before any byte is fetched: a server that could not render what comes back refuses now.
        let admission = try configuration.renderGate.admit()
        do {
            var origin = try await ask(source, stored: stored, key: key, policy: policy, conditional: conditional)
            origin.admission = admission
            return origin
        } catch {
            admission?.release()
            throw error
        }
    }

    /// The origin's answer for `source` (its body, a 304, or the stored copy standing in for a failure).
    private func ask(_ source: ImageSource, stored: EntryStore.Entry?, key: String, policy: FetchPolicy,
                     conditional: [(String, String)]) async throws(PipelineError) -> Origin {
        let outcome: FetchOutcome
        do {
            outcome = try await fetch(source, conditional: conditional)
        } catch {
            guard let stored, let serve = strategy.staleServe(stored.metadata, after: error, policy: policy, now: Date()) else {
                throw error
            }
            return Origin(metadata: stored.metadata, servedFrom: .stale, downloaded: nil, downloadedBytes: 0,
                          entry: stored, staleBecause: serve)
        }
        switch outcome {
        case .notModified(let headers, let requestTime, let responseTime, let setsCookie):
            guard let stored else { throw .network(url: source.normalized, reason: "304 Not Modified to an unconditional request") }
            let metadata = strategy.merge(stored.metadata, notModified: headers, requestTime: requestTime, responseTime: responseTime)
            if let refusal = strategy.refusal(metadata.headers, setsCookie: setsCookie) {
                removeEntry(key)
                return Origin(metadata: metadata, servedFrom: .revalidated, downloaded: nil, downloadedBytes: 0,
                              uncacheable: refusal, entry: stored)
            }
            try store.updateMetadata(key: key, metadata)
            return Origin(metadata: metadata, servedFrom: .revalidated, downloaded: nil, downloadedBytes: 0, entry: stored)

        case .body(let original, let headers, let requestTime, let responseTime, let setsCookie):
            sessionStats.withLock { $0.bytesDownloaded += Int64(original.byteCount) }
            let info: ImageInfo
            do { info = try thumbnailer.probe(original.opened) } catch { throw .image(url: source.normalized, error) }
            var metadata = CacheMetadata(
                url: source.normalized, headers: headers, requestTime: requestTime, responseTime: responseTime,
                original: .init(format: info.format.rawValue, width: info.orientedWidth, height: info.orientedHeight,
                                bytes: original.byteCount, alpha: info.hasAlpha, digest: try original.digest(),
                                grey: info.isGrey, frames: info.frameCount))
            let uncacheable = strategy.refusal(headers, setsCookie: setsCookie)
            let storable = uncacheable == nil
            if let stored {
                // The same bytes again (e.g. the origin ignored our validators): keep the stored thumbnails.
                if storable, (try? stored.hasOriginal(equalTo: original)) == true {
                    metadata.thumbnails = stored.metadata.thumbnails
                    try store.updateMetadata(key: key, metadata)
                    return Origin(metadata: metadata, servedFrom: .network, downloaded: nil, downloadedBytes: original.byteCount,
                                  entry: stored)
                }
                // A new original: the old entry, thumbnails included, is outdated (and must go if no-store), and so
                // is every rendition of it in memory, fresh or not.
                if !storable { removeEntry(key) }
                removeFromMemory(key)
            }
            return Origin(metadata: metadata, servedFrom: .network, downloaded: original, downloadedBytes: original.byteCount,
                          uncacheable: uncacheable, entry: nil)
        }
    }

    private func fetch(_ source: ImageSource, conditional: [(String, String)]) async throws(PipelineError) -> FetchOutcome {
        switch source.kind {
        case .file:
            return try FileFetcher(limits: configuration.fetchLimits, policy: configuration.sourcePolicy)
                .fetch(source.location, conditional: conditional)
        case .http:
            guard let location = source.http else { throw .invalidSource(source.normalized, "not a valid http(s) URL") }
            return try await http().fetch(location, conditional: conditional)
        }
    }

    /// The HTTP client starts its event loop threads, so it is only created once a download is needed:
    /// a disk hit never pays for it.
    private func http() throws(PipelineError) -> HTTPFetcher {
        let folder = try downloadFolder.withLock { (folder: inout DownloadFolder?) -> Result<URL, PipelineError> in
            if let folder { return .success(folder.url) }
            return Result { () throws(PipelineError) in try DownloadFolder(in: downloads) }.map { created in
                folder = created
                return created.url
            }
        }.get()
        guard let fetcher = fetchers.fetcher(payload: .image(downloads: folder)) else {
            throw .cancelled("the pipeline is closed")
        }
        return fetcher
    }
}
