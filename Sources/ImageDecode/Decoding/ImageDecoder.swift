import Foundation
import CJpegPngGlue

/// A decoder whose header has been read, ready to produce rows top to bottom.
/// Decoders point into the caller's bytes and must not outlive `ImageDecoder.withDecoder`.
protocol RowDecoder: AnyObject {
    var info: ImageInfo { get }
    /// The ICC profile that describes the rows `readRows` delivers, if they still need converting to
    /// sRGB (nil for CMYK sources, whose rows are RGB already).
    var rowProfile: ColorProfile? { get }
    /// Starts decoding. `shrink` (>= 1, or below 1 for a decoder that `drawsAtAnyScale`) is how much the caller
    /// will reduce the image; a decoder that can reduce while decoding (JPEG DCT scaling) uses part of it.
    /// With `convertToSRGB`, CMYK sources go through their ICC profile to sRGB here (RGB
    /// profiles are applied by the caller after resizing, where it is cheaper).
    /// Returns the size and channel count (3 or 4) of the rows `readRows` will deliver.
    func start(shrink: Double, convertToSRGB: Bool) throws(ImageDecodeError) -> (width: Int, height: Int, channels: Int)
    /// Delivers every row, in order, then checks the rest of the file. An error `consume` throws (a cancelled
    /// render) stops the decode there and is rethrown.
    func readRows(_ consume: (UnsafeBufferPointer<UInt8>) throws(ImageDecodeError) -> Void) throws(ImageDecodeError)
    /// Bytes this decoder will hold while decoding at `shrink`, worked out from the header before `start`
    /// allocates anything: the library's state and row buffers plus any whole-image buffer (a progressive
    /// JPEG's coefficients, an interlaced PNG's frame). The renderer (`RegionReader`) adds its own and checks
    /// the budget.
    func workingMemory(shrink: Double) -> Int
    /// After `start`: what the delivered rows span, in delivered pixels, when that is less than their count. A
    /// reduction by an integer factor cuts its last block short (JPEG DCT scaling: 1975 rows at 1/8 are 247 rows
    /// spanning 246.875), and the resizer must map onto the span or it stretches the image. Nil: the count.
    var decodedExtent: (width: Double, height: Double)? { get }
    /// A vector's decoder draws at any size (`start(shrink:)` below 1 enlarges): an enlarged result is drawn, not
    /// upsampled from the natural size, as libvips loads a vector at the scale imgproxy's plan needs.
    var drawsAtAnyScale: Bool { get }
    /// A decoder of the same open for another pixel limit, for a decoder whose open is costly and leaves it reusable:
    /// it holds nothing of the bytes once open, and a read does not consume what was opened (librsvg's parsed tree
    /// draws any number of times). `OpenedImage` keeps one from the probe to the render instead of opening the source
    /// again for each; the memory limit an open is given is not passed on (a reusable decoder takes none). Nil (the
    /// default): every use opens the source anew, as a header read is cheap and a started decoder is spent.
    func reopened(maxPixels: Int) -> (any RowDecoder)?
}

extension RowDecoder {
    /// Decoders that deliver full size, or rescale to exactly the delivered size (libwebp), span their count.
    var decodedExtent: (width: Double, height: Double)? { nil }
    var drawsAtAnyScale: Bool { false }
    func reopened(maxPixels: Int) -> (any RowDecoder)? { nil }
}

/// Entry points for probing and decoding every readable format (`ImageFormat.isDecodable`), in memory or on disk.
public enum ImageDecoder {
    public static let defaultMaxPixels = 50_000_000

    /// Reads the header only.
    public static func probe(_ data: Data) throws(ImageDecodeError) -> ImageInfo {
        try probe(.data(data))
    }

    /// Reads the header only (for a file, only its first blocks are read). With `maxPixels`, the size the decode
    /// under that limit will have: a vector source's is scaled down to fit it (`SVGDecoder`), a raster's refused.
    public static func probe(_ input: EncodedImage, maxPixels: Int = .max) throws(ImageDecodeError) -> ImageInfo {
        try withDecoder(for: input, maxPixels: maxPixels) { decoder throws(ImageDecodeError) in decoder.info }
    }

    /// Decodes the whole image at full size, without orientation applied. With `convertToSRGB`
    /// (the default) an embedded ICC profile is applied, so the pixels are sRGB; without it they
    /// are the stored values (CMYK still becomes RGB, by the naive formula).
    public static func decode(_ data: Data, maxPixels: Int = defaultMaxPixels,
                              convertToSRGB: Bool = true) throws(ImageDecodeError) -> PixelBuffer {
        try withDecoder(for: .data(data), maxPixels: maxPixels) { decoder throws(ImageDecodeError) in
            let (width, height, channels) = try decoder.start(shrink: 1, convertToSRGB: convertToSRGB)
            var pixels = [UInt8]()
            pixels.reserveCapacity(width * height * channels)
            try decoder.readRows { row in pixels.append(contentsOf: row) }
            var image = PixelBuffer(width: width, height: height, channels: channels, pixels: pixels)
            if convertToSRGB { decoder.rowProfile?.rgbTransform(channels: channels)?.convert(&image) }
            return image
        }
    }

    /// Opens a decoder on `input` and checks the pixel budget before any pixel memory exists. `maxMemory` is
    /// handed to the libraries that can enforce a limit themselves (libjpeg), behind the caller's estimate;
    /// `threads` to the decoders that can use several (libjxl: `RenderLimits.decodeThreads`).
    static func withDecoder<Result>(
        for input: EncodedImage, maxPixels: Int, maxMemory: Int = .max, threads: Int = 1,
        _ body: (any RowDecoder) throws(ImageDecodeError) -> Result
    ) throws(ImageDecodeError) -> Result {
        switch input {
        case .opened(let opened):
            return try opened.withDecoder(maxPixels: maxPixels, maxMemory: maxMemory, threads: threads, body)
        case .data(let data):
            guard let format = ImageFormat.sniff(data) else { throw .unrecognizedFormat }
            let outcome: Swift.Result<Result, ImageDecodeError> = data.withUnsafeBytes { bytes in
                do throws(ImageDecodeError) {
                    let decoder: any RowDecoder = switch format {
                    case .jpeg: try JPEGDecoder(bytes, memoryLimit: maxMemory)
                    case .png: try PNGDecoder(bytes)
                    case .webp: try WebPDecoder(bytes)
                    case .gif: try GIFDecoder(bytes)
                    case .avif: try AVIFDecoder(bytes, maxPixels: maxPixels)
                    case .heic: try HEICDecoder(bytes, maxPixels: maxPixels)
                    case .jxl: try JXLDecoder(bytes, threads: threads)
                    case .tiff: try TIFFDecoder(bytes, memoryLimit: maxMemory)
                    case .bmp: try BMPDecoder(bytes)
                    case .ico: try ICODecoder(bytes)
                    case .svg: try SVGDecoder(bytes, maxPixels: maxPixels)
                    }
                    return .success(try run(decoder, maxPixels: maxPixels, body))
                } catch {
                    return .failure(error)
                }
            }
            return try outcome.get()
        case .file(let path):
            guard let file = fopen(path, "rb") else {
                throw .unreadable(path: path, reason: String(cString: strerror(errno)))
            }
            defer { fclose(file) }
            var signature = [UInt8](repeating: 0, count: ImageFormat.signatureLength)
            let count = fread(&signature, 1, signature.count, file)
            guard ferror(file) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
            guard let format = ImageFormat.sniff(Data(signature.prefix(count))) else { throw .unrecognizedFormat }
            rewind(file)
            let decoder: any RowDecoder
            switch format {
            case .jpeg: decoder = try JPEGDecoder(file: file, memoryLimit: maxMemory)
            case .png: decoder = try PNGDecoder(file: file)
            case .tiff: decoder = try TIFFDecoder(file: file, memoryLimit: maxMemory)
            case .heic: decoder = try HEICDecoder(file: file, maxPixels: maxPixels)
            case .webp, .gif, .avif, .jxl, .bmp, .ico, .svg:
                // libwebp, our GIF reader, libavif, libjxl and librsvg take the file whole, and bottom-up
                // BMP rows are read last to first: it is read into memory.
                return try withDecoder(for: .data(readAll(file, path: path)), maxPixels: maxPixels, maxMemory: maxMemory,
                                       threads: threads, body)
            }
            return try run(decoder, maxPixels: maxPixels, body)
        }
    }

    /// The rest of an open file, in 64 KiB reads.
    static func readAll(_ file: UnsafeMutablePointer<FILE>, path: String) throws(ImageDecodeError) -> Data {
        var contents = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            contents.append(contentsOf: chunk.prefix(count))
            if count < chunk.count { break }
        }
        guard ferror(file) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        return contents
    }

    static func run<Result>(
        _ decoder: any RowDecoder, maxPixels: Int, _ body: (any RowDecoder) throws(ImageDecodeError) -> Result
    ) throws(ImageDecodeError) -> Result {
        let info = decoder.info
        guard info.width > 0, info.height > 0 else { throw .corrupt("image has zero width or height") }
        // A vector's decoder has fitted its size to the limit already (imgproxy checks no vector's declared size).
        if !info.format.isVector { try checkPixels(width: info.width, height: info.height, maxPixels: maxPixels) }
        return try body(decoder)
    }

    /// The one pixel-count limit: every decode checks its header against it, and a cache checks a stored original's
    /// size against a request's lower limit with it before reading a byte.
    package static func checkPixels(width: Int, height: Int, maxPixels: Int) throws(ImageDecodeError) {
        guard width.multipliedReportingOverflow(by: height).partialValue <= maxPixels,
              width <= Int(Int32.max) / 8, height <= Int(Int32.max) / 8 else {
            throw .tooLarge(width: width, height: height, limit: maxPixels)
        }
    }

    /// Maps a glue status and the library's message to the public error.
    static func error(_ status: tc_status, message: UnsafePointer<CChar>?) -> ImageDecodeError {
        let text = message.map { String(cString: $0) } ?? ""
        switch status {
        case TC_TRUNCATED: return .truncated
        case TC_UNSUPPORTED: return .unsupported(text)
        case TC_NO_MEMORY, TC_OVER_BUDGET: return .outOfMemory
        default: return .corrupt(text.isEmpty ? "decoder reported an error" : text)
        }
    }
}
