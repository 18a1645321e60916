import CJpegPngGlue

/// Streams rows out of a PNG through libpng, expanded to 8-bit RGB or RGBA.
final class PNGDecoder: RowDecoder {
    let info: ImageInfo
    let colorProfile: ColorProfile?
    var rowProfile: ColorProfile? { colorProfile }
    private let handle: OpaquePointer
    private var channels = 0
    private var passes = 1

    /// Decodes from `bytes`, which must outlive the decoder.
    convenience init(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodeError) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let handle = tc_png_decoder_create(base, bytes.count) else { throw .outOfMemory }
        try self.init(handle: handle)
    }

    /// Decodes from `file`, read as decoding proceeds; it must stay open while the decoder lives.
    convenience init(file: UnsafeMutablePointer<FILE>) throws(ImageDecodeError) {
        guard let handle = tc_png_decoder_create_file(file) else { throw .outOfMemory }
        try self.init(handle: handle)
    }

    /// Takes ownership of `handle` and reads the header.
    private init(handle: OpaquePointer) throws(ImageDecodeError) {
        self.handle = handle
        var header = tc_png_header()
        let status = tc_png_read_header(handle, &header)
        guard status == TC_OK else {
            let error = ImageDecoder.error(status, message: tc_png_message(handle))
            tc_png_decoder_destroy(handle)
            throw error
        }
        var exifLength = 0
        let exif = tc_png_exif(handle, &exifLength)
        let orientation = DecoderGlue.orientation(exif, length: exifLength)
        var iccLength = 0
        colorProfile = tc_png_icc(handle, &iccLength).flatMap {
            ColorProfile(Array(UnsafeBufferPointer(start: $0, count: iccLength)))
        }
        info = ImageInfo(format: .png, width: Int(header.width), height: Int(header.height),
                         orientation: orientation ?? .identity, hasAlpha: header.has_alpha != 0,
                         isProgressive: header.interlaced != 0, colorProfile: colorProfile?.name,
                         // Colour types 0 (grey) and 4 (grey+alpha): no colour bit, no palette bit.
                         isGrey: header.color_type & 3 == 0,
                         metadata: ImageMetadata(exif: ImageMetadata.bytes(exif, exifLength), xmp: nil,
                                                 colorProfile: colorProfile))
    }

    deinit { tc_png_decoder_destroy(handle) }

    /// An interlaced image's whole frame (Adam7 fills rows over 7 passes) or one row, plus libpng's own: its
    /// row, previous row and transformed row (at most 8 bytes a pixel as stored), the inflate window and read
    /// buffer, and the profile it keeps. PNG has no reduced-resolution decode, so `shrink` is not used.
    func workingMemory(shrink: Double) -> Int {
        let stride = info.width * (info.hasAlpha ? 4 : 3)
        let frame = info.isProgressive ? stride * info.height : stride
        return frame + 3 * (info.width * 8 + 1) + 64 << 10 + (colorProfile?.bytes.count ?? 0)
    }

    /// PNG has no reduced-resolution decode, so `shrink` is not used.
    func start(shrink: Double, convertToSRGB: Bool) throws(ImageDecodeError) -> (width: Int, height: Int, channels: Int) {
        var channels: Int32 = 0, passes: Int32 = 0
        let status = tc_png_start(handle, &channels, &passes)
        guard status == TC_OK else { throw ImageDecoder.error(status, message: tc_png_message(handle)) }
        self.channels = Int(channels)
        self.passes = Int(passes)
        return (info.width, info.height, self.channels)
    }

    func readRows(_ consume: (UnsafeBufferPointer<UInt8>) throws(ImageDecodeError) -> Void) throws(ImageDecodeError) {
        let stride = info.width * channels
        // Adam7 fills every row over 7 passes, so interlaced images need the whole frame;
        // non-interlaced ones stream through a single row.
        let rows = passes > 1 ? info.height : 1
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: stride * rows)
        buffer.initialize(repeating: 0)
        defer { buffer.deallocate() }
        for _ in 0..<passes {
            for y in 0..<info.height {
                let row = passes > 1 ? buffer.baseAddress! + y * stride : buffer.baseAddress!
                let status = tc_png_read_row(handle, row)
                guard status == TC_OK else { throw ImageDecoder.error(status, message: tc_png_message(handle)) }
                if passes == 1 { try consume(UnsafeBufferPointer(start: row, count: stride)) }
            }
        }
        if passes > 1 {
            for y in 0..<info.height {
                try consume(UnsafeBufferPointer(rebasing: buffer[y * stride..<(y + 1) * stride]))
            }
        }
        let status = tc_png_finish(handle)
        guard status == TC_OK else { throw ImageDecoder.error(status, message: tc_png_message(handle)) }
    }
}
