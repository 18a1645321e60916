import ArgumentParser
import ImageDecode
import ThumbcacheKit

/// Limits on what one decode may take (`get`, `warm`, `thumbnail`): a source over either is refused from its
/// header, before any pixel memory exists, with exit code 6 (`thumbnail`: 1, one line per input).
struct DecodeOptions: ParsableArguments {
    static let defaultMaxDecodeMemory = ByteCount(bytes: Int64(ThumbnailRequest.defaultMaxDecodeMemory))

    @Option(help: ArgumentHelp(
        "Largest image accepted, in pixels (width x height), at least 1 (default: \(ImageDecoder.defaultMaxPixels)).",
        valueName: "pixels"))
    var maxPixels: Int = ImageDecoder.defaultMaxPixels

    static let maxDecodeMemoryHelp = ByteCount.optionHelp(
        "Memory one decode may use, e.g. 512MiB (default: \(defaultMaxDecodeMemory)).",
        discussion: "Progressive JPEGs and interlaced PNGs hold the whole image while decoding: a progressive 7000x7000 "
            + "JPEG decoded at full size needs about 300 MiB (about 25 MiB for a 256 thumbnail).")

    @Option(help: maxDecodeMemoryHelp, transform: { try ByteCount(parsing: $0) })
    var maxDecodeMemory: ByteCount = defaultMaxDecodeMemory

    @Option(help: ArgumentHelp(
        "With --options: most arithmetic the blur, sharpen, pixelate and smart gravity may cost, in operations (default: \(RenderLimits.defaultMaxEffectWork)); over it the image is refused (get: exit 64).",
        valueName: "operations"))
    var maxEffectWork: Int = RenderLimits.defaultMaxEffectWork

    @Option(help: ArgumentHelp(
        "Frames of an animated GIF or WebP rendered into a GIF or WebP answer; 1: the first frame only (default: \(RenderLimits.defaultMaxAnimationFrames)).",
        valueName: "frames"))
    var maxAnimationFrames: Int = RenderLimits.defaultMaxAnimationFrames

    @Option(help: ArgumentHelp(
        "Pixels each animation frame may have; when set, --max-pixels no longer counts all frames (default: 0, none).",
        valueName: "pixels"))
    var maxAnimationFrameResolution: Int = 0

    func validate() throws {
        guard maxPixels >= 1 else { throw ValidationError("--max-pixels must be at least 1") }
        guard maxEffectWork >= 1 else { throw ValidationError("--max-effect-work must be at least 1") }
        guard maxAnimationFrames >= 1 else { throw ValidationError("--max-animation-frames must be at least 1") }
        guard maxAnimationFrameResolution >= 0 else { throw ValidationError("--max-animation-frame-resolution must be at least 0") }
    }

    /// The per-decode limit as an Int (ByteCount allows up to Int64.max, which is Int.max here).
    var decodeMemory: Int { Int(clamping: maxDecodeMemory.bytes) }

    func apply(to configuration: inout PipelineConfiguration) {
        configuration.maxPixels = maxPixels
        configuration.maxDecodeMemory = decodeMemory
        configuration.maxEffectWork = maxEffectWork
        configuration.maxAnimationFrames = maxAnimationFrames
        configuration.maxAnimationFrameResolution = maxAnimationFrameResolution
    }
}
