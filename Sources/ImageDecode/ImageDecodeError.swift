/// Why an image was refused or a thumbnail could not be made. Every message says what is
/// wrong with the input (or request) in terms the person supplying it can act on.
public enum ImageDecodeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes are in no format thumbcache knows.
    case unrecognizedFormat
    /// A valid file using a feature this decoder deliberately does not handle (12-bit, lossless JPEG).
    case unsupported(String)
    /// The file is damaged; the associated text is the decoding library's diagnosis.
    case corrupt(String)
    /// The file ends before the image data does.
    case truncated
    /// The header declares more pixels than the configured budget; nothing was decoded.
    case tooLarge(width: Int, height: Int, limit: Int)
    /// Decoding would need more memory than the per-decode limit (`ThumbnailRequest.maxDecodeMemory`): the
    /// estimate, in bytes, from the header; nothing was decoded. Progressive and multi-scan JPEGs hold every
    /// coefficient of the image, interlaced PNGs the whole frame, whatever the thumbnail's size.
    case overMemoryBudget(needed: Int, limit: Int)
    /// An animation over its pixel limits, from the header: with `perFrame`, one frame over
    /// `RenderLimits.maxAnimationFrameResolution`; else width × height × the frames taken over `maxPixels`.
    case animationTooLarge(width: Int, height: Int, frames: Int, limit: Int, perFrame: Bool)
    /// The decoder or encoder could not get memory.
    case outOfMemory
    case encodeFailed(String)
    case invalidRequest(String)
    /// An `EncodedImage.file` that cannot be opened or read.
    case unreadable(path: String, reason: String)
    /// The render was stopped before it finished: nobody waited for it any more (`RenderCancellation`).
    case cancelled
    /// A codec library opened at first use (`CodecLibrary`) could not be loaded: the loader's reason and what to
    /// install. The machine's installation is at fault, not the image.
    case libraryUnavailable(String)

    /// The case's name (`tooLarge`, `truncated`, …): outcome counts (the fuzzer) and manifests name errors by it.
    package var caseName: String {
        switch self {
        case .unrecognizedFormat: "unrecognizedFormat"
        case .unsupported: "unsupported"
        case .corrupt: "corrupt"
        case .truncated: "truncated"
        case .tooLarge: "tooLarge"
        case .animationTooLarge: "animationTooLarge"
        case .overMemoryBudget: "overMemoryBudget"
        case .outOfMemory: "outOfMemory"
        case .encodeFailed: "encodeFailed"
        case .invalidRequest: "invalidRequest"
        case .unreadable: "unreadable"
        case .cancelled: "cancelled"
        case .libraryUnavailable: "libraryUnavailable"
        }
    }

    public var description: String {
        switch self {
        case .unrecognizedFormat:
            return "not an image in a format thumbcache reads (\(ImageFormat.names(ImageFormat.decodable))): unrecognized signature bytes"
        case .unsupported(let detail):
            return "unsupported image: \(detail)"
        case .corrupt(let detail):
            return "corrupt image data: \(detail)"
        case .truncated:
            return "the image file is truncated (it ends before the image data is complete; was the download cut off?)"
        case .tooLarge(let width, let height, let limit):
            return "image is \(width)x\(height) = \(width * height) pixels, above the limit of \(limit) pixels; "
                + "raise the limit to allow it (thumbcache: --max-pixels; ThumbnailRequest.maxPixels)"
        case .overMemoryBudget(let needed, let limit):
            return "decoding this image needs about \(Self.mebibytes(needed)), above the limit of \(Self.mebibytes(limit)) "
                + "for one decode (progressive JPEGs and interlaced PNGs hold the whole image while decoding); raise "
                + "the limit to allow it (thumbcache: --max-decode-memory; ThumbnailRequest.maxDecodeMemory)"
        case .animationTooLarge(let width, let height, let frames, let limit, let perFrame):
            if perFrame {
                return "each frame of this animation is \(width)x\(height) = \(width * height) pixels, above the limit of "
                    + "\(limit) pixels per frame (thumbcache: --max-animation-frame-resolution; max_animation_frame_resolution)"
            }
            return "this animation is \(width)x\(height) x \(frames) frames = \(width * height * frames) pixels, above the "
                + "limit of \(limit) pixels; take fewer frames (--max-animation-frames, max_animation_frames), raise "
                + "--max-pixels, or ask for the first frame only (disable_animation)"
        case .outOfMemory:
            return "out of memory while decoding the image"
        case .encodeFailed(let detail):
            return "could not encode the thumbnail: \(detail)"
        case .invalidRequest(let detail):
            return "invalid thumbnail request: \(detail)"
        case .unreadable(let path, let reason):
            return "cannot read \(path): \(reason)"
        case .cancelled:
            return "the render was stopped before it finished: no request waited for it any more; ask again"
        case .libraryUnavailable(let detail):
            return "this machine cannot read or write the format: \(detail)"
        }
    }

    /// `312.5 MiB`: one decimal, as people compare memory figures.
    static func mebibytes(_ bytes: Int) -> String {
        "\((Double(bytes) / 1_048_576 * 10).rounded() / 10) MiB"
    }
}
