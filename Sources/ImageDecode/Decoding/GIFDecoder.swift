import CWebpGifAvifGlue
import CJpegPngGlue

/// Decodes the first frame of a GIF, drawn on its logical screen: transparency and any part of the screen
/// the frame leaves empty become alpha. Later frames are counted, not read here (`GIFFrames` reads an animation). GIF has no reduced-size decode.
final class GIFDecoder: RowDecoder {
    let info: ImageInfo
    /// GIF carries no usable colour profile (an ICC application extension is rare and ignored): sRGB.
    var rowProfile: ColorProfile? { nil }
    private let handle: OpaquePointer
    private let header: tc_gif_header
    private var channels = 3

    /// Decodes from `bytes`, which must outlive the decoder.
    init(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodeError) {
        (handle, header) = try DecoderGlue.open(bytes, empty: tc_gif_header(), create: tc_gif_decoder_create,
                                                read: tc_gif_read_header, message: tc_gif_message,
                                                destroy: tc_gif_decoder_destroy)
        // Frames are counted from the block structure alone (no LZW), so the animation limits are checked first.
        var frames: Int32 = 0, complete: Int32 = 0
        _ = tc_gif_count_frames(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, Int32.max, &frames, &complete)
        info = ImageInfo(format: .gif, width: Int(header.screen_width), height: Int(header.screen_height),
                         hasAlpha: header.has_alpha != 0, isProgressive: header.interlaced != 0, frameCount: max(1, Int(frames)))
    }

    deinit { tc_gif_decoder_destroy(handle) }

    /// Peak bytes: one index byte and one coverage byte per screen pixel, the LZW table, one output row.
    func workingMemory(shrink: Double) -> Int {
        info.width * info.height * 2 + 20_000 + info.width * 4
    }

    func start(shrink: Double, convertToSRGB: Bool) throws(ImageDecodeError) -> (width: Int, height: Int, channels: Int) {
        channels = info.hasAlpha ? 4 : 3
        return (info.width, info.height, channels)
    }

    func readRows(_ consume: (UnsafeBufferPointer<UInt8>) throws(ImageDecodeError) -> Void) throws(ImageDecodeError) {
        let pixels = info.width * info.height
        // Allocated only now, after the caller checked the screen against the pixel budget.
        let indices = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: pixels)
        defer { indices.deallocate() }
        let covered = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: pixels)
        defer { covered.deallocate() }
        indices.initialize(repeating: 0)
        covered.initialize(repeating: 0)
        let status = tc_gif_decode(handle, indices.baseAddress, covered.baseAddress)
        guard status == TC_OK else { throw ImageDecoder.error(status, message: tc_gif_message(handle)) }
        var palette = [UInt8](repeating: 0, count: 768)
        tc_gif_palette(handle, &palette)
        let transparent = Int(header.transparent_index)
        var row = [UInt8](repeating: 0, count: info.width * channels)
        for y in 0..<info.height {
            for x in 0..<info.width {
                let at = y * info.width + x
                let index = Int(indices[at])
                let out = x * channels
                if covered[at] == 0 || index == transparent {
                    // Transparent black, so resampling does not bleed a colour into the edges.
                    for c in 0..<channels { row[out + c] = 0 }
                    continue
                }
                row[out] = palette[index * 3]
                row[out + 1] = palette[index * 3 + 1]
                row[out + 2] = palette[index * 3 + 2]
                if channels == 4 { row[out + 3] = 255 }
            }
            try row.withUnsafeBufferPointer { (row) throws(ImageDecodeError) in try consume(row) }
        }
    }
}
