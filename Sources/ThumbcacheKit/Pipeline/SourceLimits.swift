import ImageDecode
import Processing

/// The limits an original must be within to be rendered for one request: the owner's (`FetchLimits.maxDownloadBytes`,
/// `PipelineConfiguration.maxPixels`, the animation limits), lowered by the request's `max_src_file_size`,
/// `max_src_resolution`, `max_animation_frames` and `max_animation_frame_resolution`. A request never raises them:
/// the owner's limits are also what bounds its memory. The checks are the ones the
/// download and the decoder make (`FetchLimits.checkSize`, `ImageDecoder.checkPixels`), asked again of the stored
/// original, since one download serves every request for a source whatever its limits.
struct SourceLimits: Sendable {
    /// The owner's limits.
    let fetch: FetchLimits
    private let ownerMaxPixels: Int
    /// The request's own, when it sets them.
    private let requestBytes: Int?
    private let requestPixels: Int?
    private let requestFramePixels: Int?
    /// What the decoder may read for this request: the lower of the two.
    var maxPixels: Int { min(ownerMaxPixels, requestPixels ?? .max) }
    /// Frames of an animation rendered for this request: the lower of the two.
    let maxAnimationFrames: Int
    /// The owner's per-frame limit (0: the pixel limit counts every frame): the decoder's rule. The request's is
    /// checked as well (`checkFrames`), so it only ever adds a limit.
    let maxAnimationFrameResolution: Int

    init(configuration: PipelineConfiguration, options: ProcessingOptions) {
        fetch = configuration.fetchLimits
        ownerMaxPixels = configuration.maxPixels
        requestBytes = options.maxSourceFileSize.flatMap { $0 > 0 ? $0 : nil }
        requestPixels = options.maxSourceResolution
        // 0: no per-frame limit, as imgproxy's and the server's own flag read it.
        requestFramePixels = options.maxAnimationFrameResolution.flatMap { $0 > 0 ? $0 : nil }
        maxAnimationFrames = min(configuration.maxAnimationFrames, options.maxAnimationFrames ?? .max)
        maxAnimationFrameResolution = configuration.maxAnimationFrameResolution
    }

    /// The render's limits for this request.
    func renderLimits(maxDecodeMemory: Int, maxEffectWork: Int) -> RenderLimits {
        RenderLimits(maxPixels: maxPixels, maxDecodeMemory: maxDecodeMemory, maxEffectWork: maxEffectWork,
                     maxAnimationFrames: maxAnimationFrames, maxAnimationFrameResolution: maxAnimationFrameResolution)
    }

    /// Refuses an animation kept animated whose frames are over the request's `max_animation_frame_resolution`
    /// (imgproxy checks frames only when it renders them as an animation; a still answer is `max_src_resolution`'s).
    func checkFrames(_ original: CacheMetadata.Original, animated: Bool, url: String) throws(PipelineError) {
        // An entry made before frames were counted (`frames` nil) is not refused as an animation it may not be.
        if animated, (original.frames ?? 1) > 1, let requestFramePixels, original.width * original.height > requestFramePixels {
            throw .overRequestLimit(url: url, option: .maxAnimationFrameResolution, limit: "\(requestFramePixels) pixels a frame",
                                    actual: "\(original.width)×\(original.height)")
        }
    }

    /// Refuses `original` when it is over either limit: the owner's as the download and the decoder would
    /// (`downloadTooLarge`, `image(.tooLarge)`, naming the flag to raise), the request's naming its option.
    func check(_ original: CacheMetadata.Original, url: String) throws(PipelineError) {
        try fetch.checkSize(original.bytes, url: url)
        // A vector's declared size is not refused: it is drawn scaled down to fit `maxPixels` (imgproxy's rule).
        if original.isVector {
            if let requestBytes, original.bytes > requestBytes {
                throw .overRequestLimit(url: url, option: .maxSourceFileSize, limit: "\(requestBytes) bytes",
                                        actual: "\(original.bytes) bytes")
            }
            return
        }
        do { try ImageDecoder.checkPixels(width: original.width, height: original.height, maxPixels: ownerMaxPixels) } catch {
            throw .image(url: url, error)
        }
        if let requestBytes, original.bytes > requestBytes {
            throw .overRequestLimit(url: url, option: .maxSourceFileSize, limit: "\(requestBytes) bytes",
                                    actual: "\(original.bytes) bytes")
        }
        if let requestPixels, original.width * original.height > requestPixels {
            throw .overRequestLimit(url: url, option: .maxSourceResolution, limit: "\(requestPixels) pixels",
                                    actual: "\(original.width)×\(original.height)")
        }
    }
}
