import Foundation

/// The animation writers of the formats that save animation (`ImageFormat.savesAnimation`): animated GIF
/// (`GIFEncoder`) and animated WebP (`WebPAnimationEncoder`, lossy at the quality given). Each takes frames one at a
/// time, as `PlanRenderer.renderAnimation` renders them.
enum AnimationEncoder {
    static func writer(for format: ImageFormat, quality: Int) throws(ImageDecodeError) -> any AnimationWriter {
        switch format {
        case .gif: return GIFEncoder()
        case .webp: return WebPAnimationEncoder(quality: quality)
        default: throw .invalidRequest("\(format.rawValue) cannot hold an animation; choose gif or webp")
        }
    }

    /// What `format`'s writer holds at most (`AnimationWriter.workingMemory`); 0 for a format that cannot animate.
    static func workingMemory(for format: ImageFormat, width: Int, height: Int, frames: Int) -> Int {
        switch format {
        case .gif: return GIFEncoder.workingMemory(width: width, height: height, frames: frames)
        case .webp: return WebPAnimationEncoder.workingMemory(width: width, height: height, frames: frames)
        default: return 0
        }
    }

    /// Frames a caller already holds (made in memory, as tests do), through `format`'s writer.
    static func encode(_ frames: [PixelBuffer], delays: [Int], loopCount: Int?, as format: ImageFormat,
                       quality: Int) throws(ImageDecodeError) -> Data {
        let writer = try writer(for: format, quality: quality)
        for (frame, delay) in zip(frames, delays) { try writer.add(frame, delay: delay) }
        return try writer.finish(loopCount: loopCount)
    }
}
