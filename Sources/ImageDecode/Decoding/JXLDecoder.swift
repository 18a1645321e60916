import CHeifJxlGlue
import CJpegPngGlue

/// Decodes JPEG XL (bare codestreams and ISOBMFF containers; lossy XYB and lossless; 8/16-bit and float; grey; alpha;
/// the first frame of an animation, composited) through libjxl to 8-bit RGB(A). libjxl applies the codestream's
/// orientation, so the rows are upright: `info.orientation` is identity and the Exif orientation is reset in the
/// metadata. Lossy (XYB) images are rendered straight to sRGB; lossless ones in another space carry its ICC profile
/// for the renderer's LittleCMS path. No reduced decode: libjxl 0.7's progressive flush renders into a full-size
/// buffer (docs/imagedecode.md).
final class JXLDecoder: RowDecoder {
    let info: ImageInfo
    let colorProfile: ColorProfile?
    var rowProfile: ColorProfile? { colorProfile }
    private let handle: OpaquePointer
    private let header: tc_jxl_header
    private var channels = 3
    /// Threads the frame is decoded on (`RenderLimits.decodeThreads`).
    private let threads: Int

    init(_ bytes: UnsafeRawBufferPointer, threads: Int = 1) throws(ImageDecodeError) {
        try CodecLibrary.jxl.load()
        self.threads = max(1, threads)
        let (handle, header) = try DecoderGlue.open(bytes, empty: tc_jxl_header(), create: tc_jxl_decoder_create,
                                                    read: tc_jxl_read_header, message: tc_jxl_message,
                                                    destroy: tc_jxl_decoder_destroy)
        self.handle = handle
        self.header = header
        let metadata = DecoderGlue.uprightMetadata(icc: { tc_jxl_icc(handle, $0) }, exif: { tc_jxl_exif(handle, $0) },
                                                   xmp: { tc_jxl_xmp(handle, $0) })
        colorProfile = metadata.colorProfile
        info = ImageInfo(format: .jxl, width: Int(header.width), height: Int(header.height),
                         hasAlpha: header.has_alpha != 0, colorProfile: colorProfile?.name,
                         isGrey: header.is_grey != 0, metadata: metadata)
    }

    deinit { tc_jxl_decoder_destroy(handle) }

    /// Peak bytes: libjxl renders the frame in 32-bit float planes (colour and alpha) and converts into our 8-bit
    /// RGB(A) frame; a few MB of decoder state beside them, and each worker thread's own buffers when there are several.
    func workingMemory(shrink: Double) -> Int {
        let pixels = info.width * info.height
        let planes = pixels * 4 * (3 + (info.hasAlpha ? 1 : 0))
        let workers = threads > 1 ? threads * Self.memoryPerThread : 0
        return planes + pixels * (info.hasAlpha ? 4 : 3) + (4 << 20) + workers
    }

    /// What each of libjxl's worker threads holds beside the shared planes: its group buffers and render-pipeline
    /// rows (about 1.5 MB of floats for a 256-pixel group with borders), and the touched part of its stack.
    /// Measured: see docs/imagedecode.md ("JPEG XL on several threads").
    static let memoryPerThread = 3 << 20

    func start(shrink: Double, convertToSRGB: Bool) throws(ImageDecodeError) -> (width: Int, height: Int, channels: Int) {
        channels = info.hasAlpha ? 4 : 3
        return (info.width, info.height, channels)
    }

    func readRows(_ consume: (UnsafeBufferPointer<UInt8>) throws(ImageDecodeError) -> Void) throws(ImageDecodeError) {
        let stride = info.width * channels
        try DecoderGlue.decodeWhole(height: info.height, stride: stride, consume, decode: {
            tc_jxl_decode(handle, Int32(channels), Int32(clamping: threads), $0, stride)
        }, message: { tc_jxl_message(handle) })
    }
}
