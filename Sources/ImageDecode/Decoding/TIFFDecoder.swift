import CJpegPngGlue
import CTiffGlue

/// Streams the first page of a TIFF through libtiff, a band of rows at a time: one strip's worth of scanlines, or
/// one row of tiles. 8- and 16-bit grey, RGB(A) and CMYK are read as stored (16-bit to 8); everything else (palette,
/// 1-4 bit, YCbCr, planar, LogLuv…) through libtiff's RGBA reader. CMYK goes through its ICC profile to sRGB. When
/// the page has reduced-resolution subfiles (a pyramid) the smallest one still at least the size the caller's
/// `shrink` leads to is read instead.
final class TIFFDecoder: RowDecoder {
    let info: ImageInfo
    let colorProfile: ColorProfile?
    /// CMYK rows leave `readRows` as RGB already; RGB and grey profiles are applied by the caller.
    var rowProfile: ColorProfile? { header.is_cmyk != 0 ? nil : colorProfile }
    private let handle: OpaquePointer
    private let header: tc_tiff_header
    /// Read from a file: libtiff then holds one stored strip or tile of its own (`workingMemory`).
    private let readsFile: Bool
    /// What `tc_tiff_start` delivers: 3 or 4 bytes a pixel (4: alpha, or CMYK's inks).
    private var output = (width: 0, height: 0, bandRows: 0, channels: 3)
    private var cmykTransform: ColorTransform?

    /// Decodes from `bytes`, which must outlive the decoder. No single libtiff allocation may exceed `memoryLimit`.
    convenience init(_ bytes: UnsafeRawBufferPointer, memoryLimit: Int) throws(ImageDecodeError) {
        try CodecLibrary.tiff.load()
        let cap = Self.allocationCap(memoryLimit)
        let (handle, header) = try DecoderGlue.open(bytes, empty: tc_tiff_header(),
                                                    create: { tc_tiff_decoder_create($0, $1, cap) },
                                                    read: tc_tiff_read_header, message: tc_tiff_message,
                                                    destroy: tc_tiff_decoder_destroy)
        self.init(handle: handle, header: header, readsFile: false)
    }

    /// Decodes from `file`, read a strip or tile at a time as decoding proceeds (a TIFF is often stored
    /// uncompressed or nearly so: it is never in memory whole); it must stay open while the decoder lives.
    convenience init(file: UnsafeMutablePointer<FILE>, memoryLimit: Int) throws(ImageDecodeError) {
        try CodecLibrary.tiff.load()
        guard let handle = tc_tiff_decoder_create_file(file, Self.allocationCap(memoryLimit)) else { throw .outOfMemory }
        var header = tc_tiff_header()
        try DecoderGlue.readHeader(handle, into: &header, read: tc_tiff_read_header, message: tc_tiff_message,
                                   destroy: tc_tiff_decoder_destroy)
        self.init(handle: handle, header: header, readsFile: true)
    }

    private static func allocationCap(_ memoryLimit: Int) -> UInt64 { UInt64(min(memoryLimit, 1 << 30)) }

    private init(handle: OpaquePointer, header: tc_tiff_header, readsFile: Bool) {
        self.handle = handle
        self.header = header
        self.readsFile = readsFile
        var iccLength = 0, xmpLength = 0
        colorProfile = DecoderGlue.profile(tc_tiff_icc(handle, &iccLength), length: iccLength)
        let copyright = tc_tiff_copyright(handle).map { String(cString: $0) }
        let artist = tc_tiff_artist(handle).map { String(cString: $0) }
        let exif = EXIF.copyrightBlock(artist: artist.map { Array($0.utf8) }, copyright: copyright.map { Array($0.utf8) })
        info = ImageInfo(format: .tiff, width: Int(header.width), height: Int(header.height),
                         orientation: Orientation(exifValue: Int(header.orientation)),
                         hasAlpha: header.has_alpha != 0, colorProfile: colorProfile?.name,
                         frameCount: Int(header.page_count), isGrey: header.is_grey != 0,
                         metadata: ImageMetadata(exif: exif, xmp: ImageMetadata.bytes(tc_tiff_xmp(handle, &xmpLength), xmpLength),
                                                 colorProfile: colorProfile))
    }

    deinit { tc_tiff_decoder_destroy(handle) }

    /// The reduced-resolution level to read at `shrink` (-1: the page itself): the smallest one that is still at least
    /// the size the caller reduces to, so the resampler always has real pixels to filter (vips picks the same).
    private func level(shrink: Double) -> Int {
        guard shrink.isFinite, shrink > 1 else { return -1 }  // a level only helps when reducing
        let levels = withUnsafeBytes(of: header.level_width) { Array($0.bindMemory(to: Int32.self)) }
        let heights = withUnsafeBytes(of: header.level_height) { Array($0.bindMemory(to: Int32.self)) }
        var chosen = -1
        var chosenWidth = info.width
        for index in 0..<Int(header.level_count) {
            let width = Int(levels[index]), height = Int(heights[index])
            // A level halves with rounding down (171 rows become 85): it is enough when it has the rows the caller
            // keeps, rounded down too.
            guard width >= Int(Double(info.width) / shrink), height >= Int(Double(info.height) / shrink),
                  width < chosenWidth else { continue }
            chosen = index
            chosenWidth = width
        }
        return chosen
    }

    /// One band as stored (at most 16 scanlines of a strip, or a row of tiles with one tile), the same band as
    /// delivered (at most 4 bytes a pixel), one output row, and libtiff's codec state (the deflate window, libjpeg's
    /// tables and rows). Read from a file, libtiff also holds a stored strip or tile of its own.
    func workingMemory(shrink: Double) -> Int {
        let chosen = level(shrink: shrink)
        let (width, bandRows) = chosen < 0 ? (info.width, Int(header.band_rows))
            : (withUnsafeBytes(of: header.level_width) { Int($0.bindMemory(to: Int32.self)[chosen]) },
               withUnsafeBytes(of: header.level_band_rows) { Int($0.bindMemory(to: Int32.self)[chosen]) })
        let sampleBytes = max(1, Int(header.bits_per_sample) / 8) * max(1, Int(header.samples_per_pixel))
        let rows = header.tiled != 0 ? bandRows * 2 : min(bandRows, 16) + (header.compression == 1 && !readsFile ? 0 : bandRows)
        return rows * width * max(4, sampleBytes) + width * 4 + width * 4 + 256 << 10 + (colorProfile?.bytes.count ?? 0)
    }

    func start(shrink: Double, convertToSRGB: Bool) throws(ImageDecodeError) -> (width: Int, height: Int, channels: Int) {
        var width: Int32 = 0, height: Int32 = 0, bandRows: Int32 = 0, channels: Int32 = 0
        let status = tc_tiff_start(handle, Int32(level(shrink: shrink)), &width, &height, &bandRows, &channels)
        guard status == TC_OK else { throw ImageDecoder.error(status, message: tc_tiff_message(handle)) }
        if header.is_cmyk != 0 && convertToSRGB { cmykTransform = colorProfile?.cmykTransform(inverted: false) }
        output = (Int(width), Int(height), Int(bandRows), Int(channels))
        return (output.width, output.height, header.is_cmyk != 0 ? 3 : output.channels)
    }

    /// Rows go to `consume` straight from the band the glue fills; only CMYK's inks are converted (to RGB) here.
    func readRows(_ consume: (UnsafeBufferPointer<UInt8>) throws(ImageDecodeError) -> Void) throws(ImageDecodeError) {
        let stride = output.width * output.channels
        let band = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: stride * output.bandRows)
        defer { band.deallocate() }
        let row = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: header.is_cmyk != 0 ? output.width * 3 : 0)
        defer { row.deallocate() }
        var delivered = 0
        while delivered < output.height {
            var rows: Int32 = 0
            let status = tc_tiff_read_band(handle, band.baseAddress, &rows)
            guard status == TC_OK else { throw ImageDecoder.error(status, message: tc_tiff_message(handle)) }
            guard rows > 0 else { throw .truncated }
            for y in 0..<Int(rows) {
                let line = band.baseAddress! + y * stride
                if header.is_cmyk != 0 {
                    if let cmykTransform {
                        cmykTransform.convert(line, into: row.baseAddress!, count: output.width)
                    } else {
                        NaiveCMYK.convert(line, into: row.baseAddress!, count: output.width, inverted: false)
                    }
                    try consume(UnsafeBufferPointer(row))
                } else {
                    try consume(UnsafeBufferPointer(start: line, count: stride))
                }
            }
            delivered += Int(rows)
        }
    }
}
