/// An AVIF image sequence's frames through libavif (`avifDecoderNextImage`): each frame is a whole picture (no
/// compositing), converted to sRGB as a still is (nclx in libavif's glue, an ICC profile here). libavif 0.11 does
/// not report the sequence's repetition count: the answer loops forever.
final class AVIFFrames: FrameSource {
    let width: Int
    let height: Int
    let frameCount: Int
    var loopCount: Int? { 0 }
    private let decoder: AVIFDecoder
    private var decoded = 0

    init(_ decoder: AVIFDecoder) {
        self.decoder = decoder
        (width, height, frameCount) = (decoder.info.width, decoder.info.height, decoder.info.frameCount ?? 1)
    }

    /// libavif's planes and conversion buffers (as a still's decode counts them), and the RGBA frame.
    var workingMemory: Int { decoder.workingMemory(shrink: 1) + width * height * 4 }

    func nextFrame() throws(ImageDecodeError) -> AnimationFrame? {
        guard decoded < frameCount else { return nil }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let delay: Int
        do {
            delay = try pixels.withUnsafeMutableBufferPointer { (out) throws(ImageDecodeError) in
                try decoder.decodeNextFrame(into: out.baseAddress!, stride: width * 4)
            }
        } catch {
            // A later frame that does not decode ends the sequence there, as for GIF.
            if decoded > 0 { return nil }
            throw error
        }
        decoded += 1
        var canvas = PixelBuffer(width: width, height: height, channels: 4, pixels: pixels)
        decoder.colorProfile?.rgbTransform(channels: 4)?.convert(&canvas)
        return AnimationFrame(canvas: canvas, delay: delay)
    }
}
