import CHeifJxlGlue
import CJpegPngGlue

/// Decodes HEIC/HEIF (HEVC through libheif and libde265: stills, grids, alpha, 8-12 bit) to 8-bit RGB(A), using the
/// file's embedded thumbnail when it is at least as large as the plan needs. libheif applies the container's
/// irot/imir/clap, so the rows are upright: `info.orientation` is identity and an Exif orientation (iPhones write one
/// beside irot) is reset in the metadata rather than applied a second time, as libvips' heifload does.
final class HEICDecoder: RowDecoder {
    /// libheif's own default per-side limit (MAX_IMAGE_WIDTH/HEIGHT), kept explicit.
    static let sideLimit = 32768

    let info: ImageInfo
    let colorProfile: ColorProfile?
    var rowProfile: ColorProfile? { colorProfile }
    private let handle: OpaquePointer
    private let header: tc_heif_header
    private var channels = 3
    private var useThumbnail = false

    /// Decodes from `bytes`, which must outlive the decoder. libheif's size limit is set to the side our pixel
    /// limit allows, so the library also refuses a larger image (or grid) itself.
    convenience init(_ bytes: UnsafeRawBufferPointer, maxPixels: Int) throws(ImageDecodeError) {
        try CodecLibrary.heif.load()
        let side = Self.side(maxPixels)
        let (handle, header) = try DecoderGlue.open(bytes, empty: tc_heif_header(),
                                                    create: { tc_heif_decoder_create($0, $1, side) },
                                                    read: tc_heif_read_header, message: tc_heif_message,
                                                    destroy: tc_heif_decoder_destroy)
        self.init(handle: handle, header: header)
    }

    /// Decodes from `file` through libheif's reader: the boxes, then the items' data as libheif asks for it, so the
    /// file is never in memory whole (docs/imagedecode.md, "From a file"). It must stay open while the decoder lives.
    convenience init(file: UnsafeMutablePointer<FILE>, maxPixels: Int) throws(ImageDecodeError) {
        try CodecLibrary.heif.load()
        guard let handle = tc_heif_decoder_create_file(file, Self.side(maxPixels)) else { throw .outOfMemory }
        var header = tc_heif_header()
        try DecoderGlue.readHeader(handle, into: &header, read: tc_heif_read_header, message: tc_heif_message,
                                   destroy: tc_heif_decoder_destroy)
        self.init(handle: handle, header: header)
    }

    private static func side(_ maxPixels: Int) -> Int32 { Int32(clamping: min(maxPixels, sideLimit)) }

    private init(handle: OpaquePointer, header: tc_heif_header) {
        self.handle = handle
        self.header = header
        let metadata = DecoderGlue.uprightMetadata(icc: { tc_heif_icc(handle, $0) }, exif: { tc_heif_exif(handle, $0) },
                                                   xmp: { tc_heif_xmp(handle, $0) })
        colorProfile = metadata.colorProfile
        info = ImageInfo(format: .heic, width: Int(header.width), height: Int(header.height),
                         hasAlpha: header.has_alpha != 0, colorProfile: colorProfile?.name, metadata: metadata)
    }

    deinit { tc_heif_decoder_destroy(handle) }

    /// The embedded thumbnail is enough when it is at least the size the caller reduces to.
    private func thumbnailSuffices(shrink: Double) -> Bool {
        header.thumbnail_width > 0 && Double(header.thumbnail_width) * shrink >= Double(info.width)
            && Double(header.thumbnail_height) * shrink >= Double(info.height)
    }

    /// Peak bytes: libheif holds the whole decoded image as YCbCr planes (counted as 4:4:4, 16-bit above 8 bits, plus
    /// alpha) and converts it to interleaved RGB(A), through a 16-bit copy above 8 bits; libde265 adds its picture
    /// buffers for a tile (bounded by the same planes) and a few MB of state. Of the thumbnail, when it is used.
    func workingMemory(shrink: Double) -> Int {
        let thumbnail = thumbnailSuffices(shrink: shrink)
        let pixels = thumbnail ? Int(header.thumbnail_width) * Int(header.thumbnail_height) : info.width * info.height
        let sampleBytes = header.luma_bits > 8 ? 2 : 1
        let planes = pixels * (3 + (info.hasAlpha ? 1 : 0)) * sampleBytes
        let output = pixels * (info.hasAlpha ? 4 : 3)
        return planes * 2 + output * sampleBytes + 4 << 20
    }

    func start(shrink: Double, convertToSRGB: Bool) throws(ImageDecodeError) -> (width: Int, height: Int, channels: Int) {
        channels = info.hasAlpha ? 4 : 3
        useThumbnail = thumbnailSuffices(shrink: shrink)
        return useThumbnail ? (Int(header.thumbnail_width), Int(header.thumbnail_height), channels)
            : (info.width, info.height, channels)
    }

    func readRows(_ consume: (UnsafeBufferPointer<UInt8>) throws(ImageDecodeError) -> Void) throws(ImageDecodeError) {
        var width: Int32 = 0, height: Int32 = 0, stride = 0
        var pixels: UnsafePointer<UInt8>?
        let status = tc_heif_decode(handle, useThumbnail ? 1 : 0, Int32(channels), &width, &height, &pixels, &stride)
        guard status == TC_OK, let pixels else { throw ImageDecoder.error(status, message: tc_heif_message(handle)) }
        let expected = useThumbnail ? (header.thumbnail_width, header.thumbnail_height) : (header.width, header.height)
        guard (width, height) == expected else {
            throw .corrupt("decoded \(width)x\(height), the header says \(expected.0)x\(expected.1)")
        }
        let rowBytes = Int(width) * channels
        for y in 0..<Int(height) {
            try consume(UnsafeBufferPointer(start: pixels + y * stride, count: rowBytes))
        }
    }
}
