import Foundation
import ImageDecode
import Processing

/// The pipeline's side of rendering processing options: the plan worked out against the original's size (so a
/// stored ladder thumbnail can stand in for the original), the result refused from the header when it would be
/// over the size limit, the render (`ProcessingOptions.render`) and its failures as the pipeline's errors.
struct ProcessedRenderer: Sendable {
    /// A refusal before the render (processing) or the render's own failure (image).
    enum Failure: Error {
        case processing(ProcessingError)
        case image(ImageDecodeError)

        func pipelineError(url: String) -> PipelineError {
            switch self {
            case .processing(let error): .processing(url: url, error)
            case .image(let error): .image(url: url, error)
            }
        }
    }

    let options: ProcessingOptions
    /// What is decoded: the original, or a stored ladder thumbnail of it, opened once (`EncodedImage.openedOnce`).
    let input: EncodedImage
    let limits: RenderLimits
    /// The server's metadata settings, for what the URL leaves unset.
    let metadata: MetadataPolicy
    /// The server's watermark (`--watermark-*`), drawn where the options ask; nil: none configured.
    let watermark: WatermarkImage?
    let maxResultSide: Int

    /// The plan against the original's size and the input's header, worked out once (`workingMemory` and
    /// `render` both need them; each probe is a read of the file's first blocks).
    private let planned: Result<(plan: ProcessingPlan, info: ImageInfo), Failure>

    /// `inputIsOriginal` false: `input` is a stored ladder thumbnail of `original` (its upright size, format).
    /// A `trim` needs the original (`ThumbnailPipeline` never chooses a stand-in for one).
    init(options: ProcessingOptions, input: EncodedImage, inputIsOriginal: Bool, original: CacheMetadata.Original,
         maxResultSide: Int, limits: RenderLimits, metadata: MetadataPolicy = MetadataPolicy(), watermark: WatermarkImage? = nil) {
        // Opened once for the probe here, the estimate and the render (and a trim scan): an SVG is parsed once
        // (`OpenedImage`); the render runs on a worker, which the opened image allows (it is Sendable).
        let input = input.openedOnce()
        (self.options, self.input, self.limits, self.metadata, self.watermark, self.maxResultSide)
            = (options, input, limits, metadata, watermark, maxResultSide)
        planned = Result { () throws(Failure) in
            let planned = try Self.plan(options, input: input, inputIsOriginal: inputIsOriginal, original: original,
                                        maxResultSide: maxResultSide, maxPixels: limits.maxPixels)
            do throws(ProcessingError) {
                try options.checkEffectWork(of: planned.plan, channels: original.alpha ? 4 : 3, limit: limits.maxEffectWork)
            } catch {
                throw .processing(error)
            }
            return planned
        }
    }

    /// The memory the render in `format` (and its `fallback` encode) will reserve, from `input`'s header (`ProcessingOptions.workingMemory`: an
    /// animation's, or a still's with any trim scan); refuses a result over the size limit, and effects over the work
    /// limit, first. A trim is estimated on the untrimmed plan, which a trim only makes smaller.
    func workingMemory(format: ImageFormat, fallback: ImageFormat?) throws(Failure) -> Int {
        let (plan, info) = try planned.get()
        do {
            return try options.workingMemory(of: input, plan: plan, sourceInfo: info, format: format, fallback: fallback,
                                             limits: limits, watermark: watermark)
        } catch {
            throw .image(error)
        }
    }

    /// Before the render waits for a worker: the input's kept decoder (an SVG's parsed document) is let go, so a
    /// queued render holds no memory the budget has not reserved; the render then opens the input itself.
    func releaseBeforeWaiting() {
        if case .opened(let opened) = input { opened.dropKept() }
    }

    /// The image in `format`, its quality `q`, else `fq`, else `defaultQuality` for the format; in `fallback`
    /// instead when that is smaller (a negotiated `format`, `FormatFallback`).
    func render(format: ImageFormat, defaultQuality: (ImageFormat) -> Int, fallback: ImageFormat? = nil,
                url: String, cancellation: RenderCancellation? = nil) throws(PipelineError) -> Thumbnail {
        do throws(Failure) {
            var (plan, info) = try planned.get()
            let trim: ProcessingPlan.Rect?
            let animated = options.keepsAnimation(of: info, in: format, limits: limits)
            do { trim = try options.trimBounds(of: input, limits: limits, animated: animated, cancellation: cancellation) } catch {
                throw Failure.image(error)
            }
            if let trim {
                do { plan = try options.plan(for: info, maxResultSide: maxResultSide, trim: trim) } catch { throw Failure.processing(error) }
            }
            do {
                return try options.render(input, plan: plan, sourceInfo: info, format: format, defaultQuality: defaultQuality,
                                          fallback: fallback, limits: limits, metadataDefaults: metadata,
                                          watermark: watermark, cancellation: cancellation)
            } catch {
                throw Failure.image(error)
            }
        } catch {
            throw error.pipelineError(url: url)
        }
    }

    /// The plan against the original's size, and the input's header. A stored ladder thumbnail (no EXIF
    /// orientation of its own, smaller) stands in for the upright original; the original itself is planned from
    /// its header, which also knows its stored orientation when the options do not apply it.
    private static func plan(_ options: ProcessingOptions, input: EncodedImage, inputIsOriginal: Bool,
                             original: CacheMetadata.Original, maxResultSide: Int,
                             maxPixels: Int) throws(Failure) -> (plan: ProcessingPlan, info: ImageInfo) {
        let info: ImageInfo
        // Under the decode's pixel limit: the size an SVG is drawn at (`SVGDecoder`); a raster's was checked already.
        do { info = try ImageDecoder.probe(input, maxPixels: maxPixels) } catch { throw .image(error) }
        do {
            if inputIsOriginal { return (try options.plan(for: info, maxResultSide: maxResultSide), info) }
            return (try options.plan(sourceWidth: original.width, sourceHeight: original.height, maxResultSide: maxResultSide,
                                     vector: original.isVector), info)
        } catch {
            throw .processing(error)
        }
    }
}
