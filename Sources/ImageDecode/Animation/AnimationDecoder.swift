import Foundation

/// Opens the frames of an animated source (GIF, WebP, AVIF sequences) and checks imgproxy's animation limits from its header,
/// before any frame is decoded.
enum AnimationDecoder {
    /// The formats whose frames are read: GIF, WebP and AVIF image sequences.
    static func reads(_ format: ImageFormat) -> Bool { format == .gif || format == .webp || format == .avif }

    /// How many frames of an animation of `frameCount` are rendered: imgproxy's `min(pages, max_animation_frames)`.
    static func framesTaken(_ frameCount: Int, limits: RenderLimits) -> Int {
        max(1, min(frameCount, limits.maxAnimationFrames))
    }

    /// imgproxy's `CheckDimensions`: with a frame-resolution limit, each frame against it; else every frame taken
    /// counts against the pixel limit.
    static func checkPixels(width: Int, height: Int, frames: Int, limits: RenderLimits) throws(ImageDecodeError) {
        try ImageDecoder.checkPixels(width: width, height: height, maxPixels: .max)
        if limits.maxAnimationFrameResolution > 0 {
            guard width * height <= limits.maxAnimationFrameResolution else {
                throw .animationTooLarge(width: width, height: height, frames: frames,
                                         limit: limits.maxAnimationFrameResolution, perFrame: true)
            }
            return
        }
        guard (width * height).multipliedReportingOverflow(by: frames).partialValue <= limits.maxPixels else {
            throw .animationTooLarge(width: width, height: height, frames: frames, limit: limits.maxPixels, perFrame: false)
        }
    }

    /// Opens `input`'s frames (its header read, no frame decoded) and hands them to `body`, with the header. A file
    /// is read into memory whole, as the GIF and WebP decoders read it.
    static func withFrames<Result>(
        for input: EncodedImage, _ body: (any FrameSource, ImageInfo) throws(ImageDecodeError) -> Result
    ) throws(ImageDecodeError) -> Result {
        let data: Data
        switch input {
        // Frame readers are opened here, not kept (`OpenedImage` keeps only a reusable still decoder).
        case .opened(let opened): return try withFrames(for: opened.source, body)
        case .data(let bytes): data = bytes
        case .file(let path):
            guard let file = fopen(path, "rb") else {
                throw .unreadable(path: path, reason: String(cString: strerror(errno)))
            }
            defer { fclose(file) }
            data = try ImageDecoder.readAll(file, path: path)
        }
        guard let format = ImageFormat.sniff(data) else { throw .unrecognizedFormat }
        let outcome: Swift.Result<Result, ImageDecodeError> = data.withUnsafeBytes { bytes in
            do throws(ImageDecodeError) {
                let source: any FrameSource
                let info: ImageInfo
                switch format {
                case .gif:
                    info = try GIFDecoder(bytes).info
                    source = try GIFFrames(bytes, frameCount: info.frameCount ?? 1)
                case .webp:
                    info = try WebPDecoder(bytes).info
                    source = WebPFrames(bytes, info: info)
                case .avif:
                    // libavif's own size limit at its default: the animation's pixel limits are checked by the caller.
                    let decoder = try AVIFDecoder(bytes, maxPixels: .max)
                    info = decoder.info
                    source = AVIFFrames(decoder)
                default:
                    throw ImageDecodeError.unsupported("\(format.rawValue) animations are read as their first frame")
                }
                guard info.width > 0, info.height > 0 else { throw ImageDecodeError.corrupt("image has zero width or height") }
                return .success(try body(source, info))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}
