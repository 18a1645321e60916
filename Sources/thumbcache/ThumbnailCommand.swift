import ArgumentParser
import Foundation
import ImageDecode
import ThumbcacheKit

extension ImageFormat: ExpressibleByArgument {}
extension FitMode: ExpressibleByArgument {}

/// `thumbcache thumbnail`: makes thumbnails of local files in every readable format (`ImageFormat.decodable`).
struct ThumbnailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Make thumbnails of image files (\(ImageFormat.names(ImageFormat.decodable))).",
        discussion: """
            Decodes each INPUT (\(ImageFormat.names(ImageFormat.decodable)); of an animation or a multi-page TIFF, the \
            first frame; an SVG is drawn at the thumbnail's size), applies its orientation, resizes it with \
            Lanczos3 so it fits in SIZE x SIZE (or covers it, with --fit cover), converts an embedded \
            ICC profile to sRGB and encodes it as \(ImageFormat.names(ImageFormat.encodable)) (sRGB, the EXIF copyright kept by \
            default); --format svg (or -o x.svg) writes an SVG source itself, sanitised, as serve answers it. \
            Images are never enlarged, except an SVG, drawn at the size asked (as imgproxy). An output that is a regular file is replaced atomically; a device or \
            FIFO is written in place.

            Exit codes: 0 success; 1 some inputs were refused (one line each: corrupt, unsupported, over \
            --max-pixels or --max-decode-memory); 64 usage (also an -o extension of a format not written, such as \
            .jp2); 74 some outputs could not be written (one line each).
            """
    )

    @Argument(help: "Input image files.")
    var inputs: [String]

    @Option(help: "Longest side of the thumbnail in pixels, 1-\(ThumbnailRequest.maxSize) (side of the square with --fit cover).")
    var size: Int?

    @Option(help: ArgumentHelp(
        "imgproxy processing options instead of --size, e.g. rs:fill:300:200/g:sm (docs/processing.md): what serve renders for them.",
        valueName: "options"))
    var options: String?

    @Option(help: ArgumentHelp(
        "Watermark image drawn by a watermark (wm) option in --options, as serve's --watermark-path.", valueName: "path"))
    var watermarkPath: String?

    @Option(name: .shortAndLong, help: "Output file (only with a single input).")
    var output: String?

    @Option(help: "Directory for outputs, named after each input (for several inputs).")
    var outputDir: String?

    @Option(help: "Output format: \(ImageFormat.names(ImageFormat.askable)) (default: from the -o extension, else jpeg, or png when the source has transparency; with --options, the source's format when written; svg only for an SVG source, passed through sanitised); an -o extension of a format not written is a usage error.")
    var format: ImageFormat?

    @Option(help: "contain (fit inside the box) or cover (fill the box, centre-crop).")
    var fit: FitMode = .contain

    @Option(help: "Encoder quality, 1-100 (lossless formats such as png ignore it); default: the format's (--format-quality).")
    var quality: Int?

    @OptionGroup var encode: EncodeOptions

    @Flag(help: "Keep the stored colour values instead of converting an embedded ICC profile to sRGB.")
    var noSrgb = false

    @OptionGroup var decode: DecodeOptions

    @Option(help: ArgumentHelp(
        "Threads one decode may use, 1 to 64 (default: the machine's cores, \(ProcessInfo.processInfo.activeProcessorCount) here); inputs are made one after another. Only JPEG XL decodes on several threads today; serve keeps 1 per render.",
        valueName: "threads"))
    var decodeThreads = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        // At most 64: libjxl starts that many threads, and one it cannot start aborts the process.
        guard (1...64).contains(decodeThreads) else { throw ValidationError("--decode-threads must be from 1 to 64") }
        switch (output, outputDir) {
        case (nil, nil): throw ValidationError("give an output file with -o or a directory with --output-dir")
        case (.some, .some): throw ValidationError("use either -o or --output-dir, not both")
        case (.some, nil) where inputs.count != 1: throw ValidationError("-o takes a single input; use --output-dir for several")
        default: break
        }
        switch (size, options) {
        case (nil, nil): throw ValidationError("give --size N or --options LIST")
        case (.some, .some): throw ValidationError("give --size or --options, not both")
        case (let size?, nil) where !(1...ThumbnailRequest.maxSize).contains(size):
            throw ValidationError("--size must be between 1 and \(ThumbnailRequest.maxSize)")
        default: break
        }
        _ = try processingOptions()
        if let quality, !(1...100).contains(quality) { throw ValidationError("--quality must be between 1 and 100") }
        _ = try OutputFormat.resolve(output: output, format: format)
    }

    func run() throws {
        let processing = try processingOptions()
        let watermark = try watermarkImage()
        let qualities = try encode.qualities()
        let metadata = try encode.metadataPolicy()
        let format = try OutputFormat.resolve(output: output, format: format)
        var request = ThumbnailRequest(size: size ?? 1, fit: fit, format: format,
                                       quality: quality ?? qualities[format ?? .jpeg], maxPixels: decode.maxPixels,
                                       maxDecodeMemory: decode.decodeMemory, convertToSRGB: !noSrgb)
        request.metadata = metadata
        request.decodeThreads = decodeThreads
        let thumbnailer = Thumbnailer()
        var refused = false, unwritten = false
        for input in inputs {
            let thumbnail: Thumbnail
            // Read as it decodes: memory follows the thumbnail, not the size of the file. Opened once for every
            // read of it here (probe, estimate, render): an SVG is parsed once (`OpenedImage`).
            let image = EncodedImage.file(input).openedOnce()
            do {
                if let passed = try Self.passedThrough(input, image: image, options: processing, asked: request.format) {
                    thumbnail = passed
                } else {
                    thumbnail = try processing.map { options throws(ImageDecodeError) in
                        try Self.processed(image, options: options, asked: request.format,
                                           quality: { quality ?? qualities[$0] }, request: request,
                                           maxEffectWork: decode.maxEffectWork, metadata: metadata, watermark: watermark,
                                           animation: (decode.maxAnimationFrames, decode.maxAnimationFrameResolution))
                    } ?? thumbnailer.makeThumbnail(from: image, request)
                }
            } catch {
                refused = true
                Console.error("\(input): \(Self.describe(error))")
                continue
            }
            do {
                try AtomicFile.replace(destination(for: input, format: thumbnail.format), with: thumbnail.data)
            } catch {
                unwritten = true
                Console.error("\(input): \(error)")
            }
        }
        if unwritten { throw ExitCode(Console.Status.output) }
        if refused { throw ExitCode(Console.Status.someFailed) }
    }

    /// `--options` parsed as serve parses a URL's (one parser); nil without it.
    private func processingOptions() throws -> ProcessingOptions? {
        guard let options else { return nil }
        do { return try ProcessingOptions(parsing: options) } catch { throw ValidationError("--options: \(error)") }
    }

    /// `--watermark-path` read and decoded once, as serve does at start-up; nil without it.
    private func watermarkImage() throws -> WatermarkImage? {
        guard let watermarkPath else { return nil }
        guard let data = FileManager.default.contents(atPath: watermarkPath) else {
            throw ValidationError("--watermark-path \(watermarkPath): no readable file there")
        }
        do { return try WatermarkImage(data: data) } catch {
            throw ValidationError("--watermark-path \(watermarkPath): not an image thumbcache can decode (\(error))")
        }
    }

    /// An SVG source itself, sanitised, when serve would answer it so (`ProcessingOptions.passesThrough`): asked
    /// as svg, or with `--options` naming no format. Nil: the input is drawn. `image`: the file at `input`.
    static func passedThrough(_ input: String, image: EncodedImage, options: ProcessingOptions?,
                              asked: ImageFormat?) throws(ImageDecodeError) -> Thumbnail? {
        guard asked == .svg || (options != nil && asked == nil) else { return nil }
        let info = try ImageDecoder.probe(image)
        guard (options ?? ProcessingOptions()).passesThrough(asked: asked, source: info.format, alwaysRasterize: false) else { return nil }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: input)) } catch {
            throw .unreadable(path: input, reason: error.localizedDescription)
        }
        return Thumbnail(data: try SVGSanitizer.sanitize(data), format: info.format, width: info.width, height: info.height,
                         sourceInfo: info)
    }

    /// The image `serve` renders for these options, planned from the file's header (one planner, one renderer).
    static func processed(_ input: EncodedImage, options: ProcessingOptions, asked: ImageFormat?, quality: (ImageFormat) -> Int,
                          request: ThumbnailRequest, maxEffectWork: Int,
                          metadata: MetadataPolicy = MetadataPolicy(),
                          watermark: WatermarkImage? = nil,
                          animation: (frames: Int, frameResolution: Int) = (RenderLimits.defaultMaxAnimationFrames, 0))
        throws(ImageDecodeError) -> Thumbnail {
        let info = try ImageDecoder.probe(input, maxPixels: request.maxPixels)
        let limits = RenderLimits(maxPixels: request.maxPixels, maxDecodeMemory: request.maxDecodeMemory,
                                  // `maf` lowers the flag's limit, as in serve (`SourceLimits`).
                                  maxAnimationFrames: min(animation.frames, options.maxAnimationFrames ?? .max),
                                  maxAnimationFrameResolution: animation.frameResolution,
                                  decodeThreads: request.decodeThreads)
        // serve's rule with every written format preferred: the source keeps its format when it can be written,
        // else JPEG, or PNG for transparency (serve's default list is imgproxy's, `--preferred-formats`).
        let format = options.outputFormat(for: FormatRequest(named: asked), source: info, defaults: .preferred(.encodable),
                                          limits: limits).format
        var plan: ProcessingPlan
        do {
            plan = try options.plan(for: info, maxResultSide: ThumbnailRequest.maxSize)
            try options.checkEffectWork(of: plan, channels: info.hasAlpha ? 4 : 3, limit: maxEffectWork)
        } catch {
            throw .invalidRequest(error.description)
        }
        if let trim = try options.trimBounds(of: input, limits: limits,
                                             animated: options.keepsAnimation(of: info, in: format, limits: limits)) {
            do { plan = try options.plan(for: info, maxResultSide: ThumbnailRequest.maxSize, trim: trim) } catch {
                throw .invalidRequest(error.description)
            }
        }
        return try options.render(input, plan: plan, sourceInfo: info, format: format,
                                  defaultQuality: quality, limits: limits, convertToSRGB: request.convertToSRGB,
                                  metadataDefaults: metadata, watermark: watermark)
    }

    private func destination(for input: String, format: ImageFormat) -> String {
        if let output { return output }
        let name = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
        return URL(fileURLWithPath: outputDir ?? ".").appendingPathComponent("\(name).\(format.fileExtension)").path
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? ImageDecodeError { return error.description }
        if let error = error as? CocoaError, let path = error.filePath {
            return "cannot access \(path): \(error.localizedDescription)"
        }
        return error.localizedDescription
    }
}
