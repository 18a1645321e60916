import Foundation
import CWebpGifAvifGlue
import CJpegPngGlue

/// Writes a `RenderedAnimation` as animated WebP (libwebpmux's WebPAnimEncoder, lossy at `quality`, method 4) or
/// animated GIF (`GIFEncoder`); the formats that save animation (`ImageFormat.savesAnimation`).
enum AnimationEncoder {
    static func encode(_ animation: RenderedAnimation, as format: ImageFormat, quality: Int) throws(ImageDecodeError) -> Data {
        switch format {
        case .gif: return try GIFEncoder.encode(animation)
        case .webp: return try webp(animation, quality: quality)
        default: throw .invalidRequest("\(format.rawValue) cannot hold an animation; choose gif or webp")
        }
    }

    private static func webp(_ animation: RenderedAnimation, quality: Int) throws(ImageDecodeError) -> Data {
        guard let encoder = tc_webp_animation_encoder_create(Int32(animation.width), Int32(animation.height),
                                                             Int32(animation.loopCount ?? -1), Int32(quality)) else {
            throw .encodeFailed("libwebp cannot make an animation of \(animation.width)x\(animation.height)")
        }
        defer { tc_webp_animation_encoder_destroy(encoder) }
        var timestamp = 0
        var error = tc_encoded()
        for (frame, delay) in zip(animation.frames, animation.delays) {
            let status = frame.pixels.withUnsafeBufferPointer { pixels in
                tc_webp_animation_encoder_add(encoder, pixels.baseAddress, frame.rowBytes, Int32(frame.channels),
                                              Int32(clamping: timestamp), &error)
            }
            guard status == TC_OK else { _ = try takeEncoded(&error, status: status); return Data() }
            timestamp += delay
        }
        var out = tc_encoded()
        let status = tc_webp_animation_encoder_finish(encoder, Int32(clamping: timestamp), &out)
        return try takeEncoded(&out, status: status)
    }
}
