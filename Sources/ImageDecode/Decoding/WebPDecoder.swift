import CWebpGifAvifGlue
import CJpegPngGlue

/// Decodes a WebP (lossy, lossless, alpha, VP8X) through libwebp. An animation gives its first frame,
/// drawn on the transparent canvas; libwebp's scaled decode is the shrink-on-load step.
final class WebPDecoder: RowDecoder {
    let info: ImageInfo
    let colorProfile: ColorProfile?
    var rowProfile: ColorProfile? { colorProfile }
    private let handle: OpaquePointer
    private let header: tc_webp_header
    private var output = (width: 0, height: 0, channels: 0)

    /// Decodes from `bytes`, which must outlive the decoder.
    init(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodeError) {
        (handle, header) = try DecoderGlue.open(bytes, empty: tc_webp_header(), create: tc_webp_decoder_create,
                                                read: tc_webp_read_header, message: tc_webp_message,
                                                destroy: tc_webp_decoder_destroy)
        var exifLength = 0, iccLength = 0, xmpLength = 0
        let exif = tc_webp_exif(handle, &exifLength)
        let orientation = DecoderGlue.orientation(exif, length: exifLength)
        colorProfile = DecoderGlue.profile(tc_webp_icc(handle, &iccLength), length: iccLength)
        info = ImageInfo(format: .webp, width: Int(header.canvas_width), height: Int(header.canvas_height),
                         orientation: orientation ?? .identity, hasAlpha: header.has_alpha != 0,
                         colorProfile: colorProfile?.name, frameCount: Int(header.frame_count),
                         metadata: ImageMetadata(exif: ImageMetadata.bytes(exif, exifLength),
                                                 xmp: ImageMetadata.bytes(tc_webp_xmp(handle, &xmpLength), xmpLength),
                                                 colorProfile: colorProfile))
    }

    deinit { tc_webp_decoder_destroy(handle) }

    private var frameCoversCanvas: Bool {
        header.frame_x == 0 && header.frame_y == 0
            && header.frame_width == header.canvas_width && header.frame_height == header.canvas_height
    }

    /// The size libwebp decodes to: at least twice the thumbnail on each axis, so the Lanczos stage
    /// still has real detail to filter (libwebp's rescaler only averages); full size for a frame that
    /// does not cover the canvas, whose offsets would not scale exactly (libvips' rule too).
    func decodedSize(shrink: Double) -> (width: Int, height: Int) {
        let reduction = frameCoversCanvas && shrink >= 4 ? shrink / 2 : 1
        guard reduction > 1 else { return (info.width, info.height) }
        return (max(1, Int((Double(info.width) / reduction).rounded(.up))),
                max(1, Int((Double(info.height) / reduction).rounded(.up))))
    }

    /// Peak bytes of a decode at `shrink`: the decoded frame (RGB or RGBA) plus libwebp's own working set
    /// (about two rows of YUV and the rescaler's accumulators for lossy; the ARGB frame for lossless).
    func workingMemory(shrink: Double) -> Int {
        let (width, height) = decodedSize(shrink: shrink)
        let channels = info.hasAlpha ? 4 : 3
        let library = header.lossless != 0 ? Int(header.frame_width) * Int(header.frame_height) * 4
                                            : Int(header.frame_width) * 64
        return width * height * channels + library
    }

    func start(shrink: Double, convertToSRGB: Bool) throws(ImageDecodeError) -> (width: Int, height: Int, channels: Int) {
        let size = decodedSize(shrink: shrink)
        output = (size.width, size.height, info.hasAlpha ? 4 : 3)
        return output
    }

    /// libwebp decodes the whole frame in one call; the rows are then handed out in order.
    func readRows(_ consume: (UnsafeBufferPointer<UInt8>) throws(ImageDecodeError) -> Void) throws(ImageDecodeError) {
        try DecoderGlue.decodeWhole(height: output.height, stride: output.width * output.channels, consume, decode: {
            tc_webp_decode(handle, Int32(output.width), Int32(output.height), Int32(output.channels), $0,
                           output.width * output.channels)
        }, message: { tc_webp_message(handle) })
    }
}
