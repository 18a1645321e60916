import CWebpGifAvifGlue
import CJpegPngGlue

/// Decodes an AVIF (stills, grids, the first frame of a sequence; 8/10/12 bit, any chroma layout, alpha)
/// through libavif to 8-bit RGB(A). Orientation is the container's irot/imir only: an Exif orientation
/// that some encoders also leave must not turn the picture a second time.
final class AVIFDecoder: RowDecoder {
    /// libavif's own per-side limit (its default), kept explicit.
    static let dimensionLimit: UInt32 = 32768

    let info: ImageInfo
    let colorProfile: ColorProfile?
    var rowProfile: ColorProfile? { colorProfile }
    private let handle: OpaquePointer
    private let header: tc_avif_header
    private var channels = 3
    private var convertToSRGB = true

    /// Decodes from `bytes`, which must outlive the decoder. `maxPixels` becomes libavif's image size
    /// limit, so the library refuses a larger image (or grid tile) while parsing.
    init(_ bytes: UnsafeRawBufferPointer, maxPixels: Int) throws(ImageDecodeError) {
        try CodecLibrary.avif.load()
        let sizeLimit = UInt32(clamping: min(maxPixels, 16384 * 16384))
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let handle = tc_avif_decoder_create(base, bytes.count, sizeLimit, Self.dimensionLimit) else {
            throw .outOfMemory
        }
        var header = tc_avif_header()
        try DecoderGlue.readHeader(handle, into: &header, read: tc_avif_read_header, message: tc_avif_message,
                                   destroy: tc_avif_decoder_destroy)
        self.handle = handle
        self.header = header
        var iccLength = 0, exifLength = 0, xmpLength = 0
        colorProfile = DecoderGlue.profile(tc_avif_icc(handle, &iccLength), length: iccLength)
        info = ImageInfo(format: .avif, width: Int(header.width), height: Int(header.height),
                         orientation: Self.orientation(rotation: Int(header.rotation), mirror: Int(header.mirror)),
                         hasAlpha: header.has_alpha != 0, colorProfile: colorProfile?.name,
                         frameCount: Int(header.frame_count),
                         // avifPixelFormat 4: monochrome (4:0:0).
                         isGrey: header.yuv_format == 4,
                         metadata: ImageMetadata(exif: ImageMetadata.bytes(tc_avif_exif(handle, &exifLength), exifLength),
                                                 xmp: ImageMetadata.bytes(tc_avif_xmp(handle, &xmpLength), xmpLength),
                                                 colorProfile: colorProfile))
    }

    deinit { tc_avif_decoder_destroy(handle) }

    /// The sequence's next frame (the first on the first call) as RGBA into `out` (`stride` bytes a row), nclx colour
    /// converted to sRGB; returns how long it shows, in ms. An ICC profile is left to the caller (`colorProfile`).
    func decodeNextFrame(into out: UnsafeMutablePointer<UInt8>, stride: Int) throws(ImageDecodeError) -> Int {
        let status = tc_avif_decode(handle, 4, 1, out, stride)
        guard status == TC_OK else { throw ImageDecoder.error(status, message: tc_avif_message(handle)) }
        return Int((tc_avif_frame_duration(handle) * 1000).rounded())
    }

    /// HEIF applies irot (anticlockwise quarter turns) and then imir (mode 0: top-bottom, 1: left-right);
    /// expressed as the EXIF orientation that makes the stored pixels upright.
    static func orientation(rotation: Int, mirror: Int) -> Orientation {
        switch (rotation & 3, mirror) {
        case (0, -1): .identity
        case (1, -1): .rotate270
        case (2, -1): .rotate180
        case (3, -1): .rotate90
        case (0, 1), (2, 0): .flipHorizontal
        case (0, 0), (2, 1): .flipVertical
        case (1, 1), (3, 0): .transverse
        default: .transpose  // (1, 0), (3, 1)
        }
    }

    /// Peak bytes: the YUV planes (16-bit above 8 bits, alpha included), the RGB(A) output and, for
    /// nclx colour that needs converting, a 16-bit RGB(A) copy. AVIF has no reduced-size decode.
    func workingMemory(shrink: Double) -> Int {
        let pixels = info.width * info.height
        let sampleBytes = header.depth > 8 ? 2 : 1
        // avifPixelFormat: 1 = 4:4:4, 2 = 4:2:2, 3 = 4:2:0, 4 = monochrome.
        let chroma = switch header.yuv_format { case 1: pixels * 2; case 2: pixels; case 3: pixels / 2; default: 0 }
        let yuv = (pixels + chroma + (info.hasAlpha ? pixels : 0)) * sampleBytes
        let output = pixels * (info.hasAlpha ? 4 : 3)
        let wide = colorProfile == nil && (header.transfer == 16 || header.transfer == 18 || header.color_primaries > 2)
        return yuv + output + (wide ? output * 2 : 0)
    }

    func start(shrink: Double, convertToSRGB: Bool) throws(ImageDecodeError) -> (width: Int, height: Int, channels: Int) {
        channels = info.hasAlpha ? 4 : 3
        self.convertToSRGB = convertToSRGB
        return (info.width, info.height, channels)
    }

    func readRows(_ consume: (UnsafeBufferPointer<UInt8>) throws(ImageDecodeError) -> Void) throws(ImageDecodeError) {
        let stride = info.width * channels
        try DecoderGlue.decodeWhole(height: info.height, stride: stride, consume, decode: {
            tc_avif_decode(handle, Int32(channels), convertToSRGB ? 1 : 0, $0, stride)
        }, message: { tc_avif_message(handle) })
    }
}
