import ImageDecode
import Processing

/// The limits an original must be within to be rendered for one request: the owner's (`FetchLimits.maxDownloadBytes`,
/// `PipelineConfiguration.maxPixels`), lowered by the request's `max_src_file_size` and `max_src_resolution`. A
/// request never raises them: the owner's limits are also what bounds its memory. The checks are the ones the
/// download and the decoder make (`FetchLimits.checkSize`, `ImageDecoder.checkPixels`), asked again of the stored
/// original, since one download serves every request for a source whatever its limits.
struct SourceLimits: Sendable {
    let fetch: FetchLimits
    let maxPixels: Int

    init(configuration: PipelineConfiguration, options: ProcessingOptions) {
        var fetch = configuration.fetchLimits
        if let bytes = options.maxSourceFileSize, bytes > 0 { fetch.maxDownloadBytes = min(fetch.maxDownloadBytes, bytes) }
        self.fetch = fetch
        maxPixels = min(configuration.maxPixels, options.maxSourceResolution ?? .max)
    }

    /// Refuses `original` (as `downloadTooLarge` or `image(.tooLarge)`) when it is over either limit.
    func check(_ original: CacheMetadata.Original, url: String) throws(PipelineError) {
        try fetch.checkSize(original.bytes, url: url)
        do { try ImageDecoder.checkPixels(width: original.width, height: original.height, maxPixels: maxPixels) } catch {
            throw .image(url: url, error)
        }
    }
}
