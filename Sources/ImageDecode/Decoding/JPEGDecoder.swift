import CJpegPngGlue
import CJPEG

/// Streams rows out of a JPEG through libjpeg-turbo, using DCT scaling to shrink on load.
final class JPEGDecoder: RowDecoder {
    let info: ImageInfo
    let colorProfile: ColorProfile?
    /// CMYK rows leave `readRows` as RGB (through the profile or the naive formula): nothing left to convert.
    var rowProfile: ColorProfile? { isCMYK ? nil : colorProfile }
    private let handle: OpaquePointer
    private let isCMYK: Bool
    private let invertedInk: Bool
    /// CMYK to sRGB through the file's profile; nil means the naive formula.
    private var cmykTransform: ColorTransform?
    private var output = (width: 0, height: 0, components: 0)
    /// The DCT scaling `start` chose (1, 2, 4 or 8).
    private var denominator = 1
    /// What libjpeg's memory manager may allocate (`max_memory_to_use`).
    private let memoryLimit: Int
    /// Leave out the progressive scans the output size cannot use (same pixels; off only to compare in tests).
    var dropsUnusedScans = true
    /// How a progressive decode at 1/2-1/8 keeps its coefficients: by default only what the IDCT of its 1x1
    /// components reads (same pixels; the other storages only to compare in tests).
    var coefficientStorage = TC_COEFFICIENTS_COMPACT
    /// Bytes of the file that were not decoded because the output cannot use them.
    var droppedBytes: Int { Int(tc_jpeg_dropped_bytes(handle)) }

    /// Decodes from `bytes`, which must outlive the decoder.
    convenience init(_ bytes: UnsafeRawBufferPointer, memoryLimit: Int = .max) throws(ImageDecodeError) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let handle = tc_jpeg_decoder_create(base, bytes.count) else { throw .outOfMemory }
        try self.init(handle: handle, memoryLimit: memoryLimit)
    }

    /// Decodes from `file`, read as decoding proceeds; it must stay open while the decoder lives.
    convenience init(file: UnsafeMutablePointer<FILE>, memoryLimit: Int = .max) throws(ImageDecodeError) {
        guard let handle = tc_jpeg_decoder_create_file(file) else { throw .outOfMemory }
        try self.init(handle: handle, memoryLimit: memoryLimit)
    }

    /// Takes ownership of `handle` and reads the header.
    private init(handle: OpaquePointer, memoryLimit: Int) throws(ImageDecodeError) {
        self.handle = handle
        self.memoryLimit = memoryLimit
        var header = tc_jpeg_header()
        let status = tc_jpeg_read_header(handle, &header)
        guard status == TC_OK else {
            let error = ImageDecoder.error(status, message: tc_jpeg_message(handle))
            tc_jpeg_decoder_destroy(handle)
            throw error
        }
        var exifLength = 0, xmpLength = 0
        let exif = tc_jpeg_exif(handle, &exifLength)
        let orientation = DecoderGlue.orientation(exif, length: exifLength)
        let space = J_COLOR_SPACE(UInt32(header.color_space))
        isCMYK = space == JCS_CMYK || space == JCS_YCCK
        // Adobe's APP14 marks the (almost universal) Photoshop convention of inverted CMYK.
        invertedInk = header.saw_adobe_marker != 0
        var icc: UnsafeMutablePointer<UInt8>?
        var iccLength = 0
        if tc_jpeg_icc(handle, &icc, &iccLength) != 0, let icc {
            colorProfile = ColorProfile(Array(UnsafeBufferPointer(start: icc, count: iccLength)))
            tc_free(icc)
        } else {
            colorProfile = nil
        }
        info = ImageInfo(format: .jpeg, width: Int(header.width), height: Int(header.height),
                         orientation: orientation ?? .identity, hasAlpha: false,
                         isProgressive: header.progressive != 0, colorProfile: colorProfile?.name,
                         isGrey: space == JCS_GRAYSCALE,
                         metadata: ImageMetadata(exif: ImageMetadata.bytes(exif, exifLength),
                                                 xmp: ImageMetadata.bytes(tc_jpeg_xmp(handle, &xmpLength), xmpLength),
                                                 colorProfile: colorProfile))
    }

    deinit { tc_jpeg_decoder_destroy(handle) }

    /// libvips' rule: the largest of 1/2, 1/4, 1/8 that leaves at least twice the target
    /// size, so the Lanczos stage still has real pixels to filter (avoids moire).
    static func scaleDenominator(shrink: Double) -> Int {
        if shrink >= 16 { return 8 }
        if shrink >= 8 { return 4 }
        if shrink >= 4 { return 2 }
        return 1
    }

    /// libjpeg's whole-image coefficient buffer (progressive and multi-scan files, every block whatever the
    /// scaling; less for a progressive file's 1x1 components at 1/8), else 0.
    func coefficientBytes(shrink: Double) -> Int {
        Int(clamping: tc_jpeg_coefficient_bytes(handle, Int32(Self.scaleDenominator(shrink: shrink)), coefficientStorage))
    }

    /// The coefficient buffer, our strip of 16 rows and RGB row, and libjpeg's row buffers at the output size
    /// (main, context and upsampling rows: under 32 rows a component) and tables.
    func workingMemory(shrink: Double) -> Int {
        let denominator = Self.scaleDenominator(shrink: shrink)
        let width = (info.width + denominator - 1) / denominator
        let components = isCMYK ? 4 : 3
        return coefficientBytes(shrink: shrink) + width * components * (16 + 32) + width * 3 + 64 << 10
    }

    func start(shrink: Double, convertToSRGB: Bool) throws(ImageDecodeError) -> (width: Int, height: Int, channels: Int) {
        if isCMYK && convertToSRGB { cmykTransform = colorProfile?.cmykTransform(inverted: invertedInk) }
        var width: Int32 = 0, height: Int32 = 0, components: Int32 = 0
        denominator = Self.scaleDenominator(shrink: shrink)
        let status = tc_jpeg_start(handle, Int32(denominator), isCMYK ? 1 : 0, dropsUnusedScans ? 1 : 0,
                                   coefficientStorage, memoryLimit, &width, &height, &components)
        if status == TC_OVER_BUDGET {
            // libjpeg needed more than the estimate the caller checked: report at least what it was refused.
            throw .overMemoryBudget(needed: max(workingMemory(shrink: shrink), memoryLimit + 1), limit: memoryLimit)
        }
        guard status == TC_OK else { throw ImageDecoder.error(status, message: tc_jpeg_message(handle)) }
        output = (Int(width), Int(height), Int(components))
        guard output.components == (isCMYK ? 4 : 3) else {
            throw .unsupported("JPEG with \(output.components) output components")
        }
        return (output.width, output.height, 3)
    }

    /// libjpeg rounds a scaled size up: the last row and column are a partial block of the source.
    var decodedExtent: (width: Double, height: Double)? {
        (Double(info.width) / Double(denominator), Double(info.height) / Double(denominator))
    }

    func readRows(_ consume: (UnsafeBufferPointer<UInt8>) throws(ImageDecodeError) -> Void) throws(ImageDecodeError) {
        let stride = output.width * output.components
        let batch = 16
        let strip = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: stride * batch)
        defer { strip.deallocate() }
        let rgb = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: output.width * 3)
        defer { rgb.deallocate() }
        var remaining = output.height
        while remaining > 0 {
            var got: Int32 = 0
            let status = tc_jpeg_read_rows(handle, strip.baseAddress, stride, Int32(min(batch, remaining)), &got)
            guard status == TC_OK else { throw ImageDecoder.error(status, message: tc_jpeg_message(handle)) }
            guard got > 0 else { throw .truncated }
            for row in 0..<Int(got) {
                let line = UnsafeBufferPointer(rebasing: strip[row * stride..<(row + 1) * stride])
                if let cmykTransform {
                    cmykTransform.convert(line.baseAddress!, into: rgb.baseAddress!, count: output.width)
                    try consume(UnsafeBufferPointer(rgb))
                } else if isCMYK {
                    convertCMYK(line, into: rgb)
                    try consume(UnsafeBufferPointer(rgb))
                } else {
                    try consume(line)
                }
            }
            remaining -= Int(got)
        }
        let status = tc_jpeg_finish(handle)
        guard status == TC_OK else { throw ImageDecoder.error(status, message: tc_jpeg_message(handle)) }
    }

    private func convertCMYK(_ cmyk: UnsafeBufferPointer<UInt8>, into rgb: UnsafeMutableBufferPointer<UInt8>) {
        NaiveCMYK.convert(cmyk.baseAddress!, into: rgb.baseAddress!, count: output.width, inverted: invertedInk)
    }
}
