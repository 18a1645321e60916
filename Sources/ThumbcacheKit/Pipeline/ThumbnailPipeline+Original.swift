import Foundation

extension ThumbnailPipeline {
    /// The stored original of `source` with its content type, as URLCache's `cachedResponse(for:)` returns the
    /// stored response: from the entry while fresh (no request), revalidated when stale, fetched when absent.
    /// A fetched original is stored (when the origin allows it) without rendering a thumbnail; it must still be
    /// an image the pipeline can read the header of.
    public func original(for source: ImageSource, policy: FetchPolicy = .normal) async throws(PipelineError) -> CachedOriginal {
        if configuration.readOnly { throw .cache(.readOnly(directory: store.cache.directory.path)) }
        let source = keyed(source)
        let key = source.cacheKey
        do {
            let origin = try await settledOrigin(source, key: key, policy: policy)
            // No render follows: the render place promised for the download goes back now.
            defer { origin.admission?.release() }
            let data: Data
            if let downloaded = origin.downloaded {
                var bytes = Data(capacity: downloaded.byteCount)
                try downloaded.forEachChunk { chunk throws(PipelineError) in
                    bytes.append(contentsOf: chunk)
                    return true
                }
                data = bytes
                if origin.storable {
                    _ = try store.save(key: key, metadata: origin.metadata, original: downloaded, thumbnail: nil)
                }
                unstored.release(key, fetchedAt: origin.metadata.responseTime)
            } else if let entry = origin.entry {
                data = try entry.original()
            } else {
                throw PipelineError.offlineMiss(url: source.normalized)
            }
            let freshness = Freshness(metadata: origin.metadata, now: Date(), shared: configuration.cacheRole.isShared)
            let headers = origin.metadata.headers
            return CachedOriginal(
                data: data, contentType: "image/\(origin.metadata.original.format)",
                headers: headers, servedFrom: origin.servedFrom, source: source.normalized, cacheKey: key,
                freshUntil: origin.freshUntil ?? Date().addingTimeInterval(max(0, freshness.remaining)))
        } catch {
            throw Self.pipelineError(error, source: source)
        }
    }
}
