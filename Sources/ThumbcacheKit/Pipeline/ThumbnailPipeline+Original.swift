import Foundation

extension ThumbnailPipeline {
    /// The stored original of `source` with its content type, as URLCache's `cachedResponse(for:)` returns the
    /// stored response: from the entry while fresh (no request), revalidated when stale, fetched when absent.
    /// A fetched original is stored (when the origin allows it) without rendering a thumbnail; it must still be
    /// an image the pipeline can read the header of.
    public func original(for source: ImageSource, policy: FetchPolicy = .normal) async throws(PipelineError) -> CachedOriginal {
        if configuration.readOnly { throw .cache(.readOnly(directory: store.directoryPath)) }
        let source = keyed(source)
        let key = source.cacheKey
        do {
            let origin = try await settledOrigin(source, key: key, policy: policy)
            // No render follows: the render place promised for the download goes back now.
            defer { origin.admission?.release() }
            let data = try origin.originalData(url: source.normalized)
            if let downloaded = origin.downloaded {
                if origin.storable {
                    _ = try saveOriginal(downloaded, of: origin, key: key, thumbnail: nil)
                }
                unstored.release(key, fetchedAt: origin.metadata.responseTime)
            }
            let headers = origin.metadata.headers
            return CachedOriginal(
                data: data, contentType: "image/\(origin.metadata.original.format)",
                headers: headers, servedFrom: origin.servedFrom, source: source.normalized, cacheKey: key,
                freshUntil: origin.freshUntil ?? strategy.freshUntil(origin.metadata, now: Date()))
        } catch {
            throw Self.pipelineError(error, source: source)
        }
    }
}

extension ThumbnailPipeline.Origin {
    /// The original's bytes, whole: the download's, else the stored entry's.
    func originalData(url: String) throws(PipelineError) -> Data {
        if let downloaded { return try downloaded.wholeData() }
        guard let entry else { throw .offlineMiss(url: url) }
        return try entry.original()
    }

    /// The original to decode: the download (opened once: its probe's open serves the render), else the stored entry's file, decoded in place (a large original is
    /// never loaded whole). `owner` keeps the entry's descriptor open: hold it until the decode is done.
    func originalImage(url: String) throws(PipelineError) -> (image: EncodedImage, owner: StoredOriginal?) {
        if let downloaded { return (downloaded.opened, nil) }
        guard let entry else { throw .offlineMiss(url: url) }
        let stored = try entry.openOriginal()
        return (stored.image, stored)
    }
}
