/// Reads BMP (and the BMP images inside ICO files) row by row, top row first, from the bytes in memory: a
/// bottom-up file's rows are read last to first. Run-length files are scanned once for where each row's commands
/// start, so they stream too; runs past a row's end are clipped, moves past the image end it, and pixels a move
/// skips are black (transparent when the image has alpha). Nothing is allocated from the header before the data
/// was checked to be there. BMP has no reduced-size decode, so `shrink` is not used.
final class BMPDecoder: RowDecoder {
    let info: ImageInfo
    /// BMP's colour-space fields (V4/V5 calibration, linked or embedded profiles) are not read: rows are sRGB.
    var rowProfile: ColorProfile? { nil }
    private let bytes: UnsafeRawBufferPointer
    private var header: BMPHeader
    /// An icon entry's AND mask (1 bit a pixel, 1 = transparent, rows bottom-up): where it starts, or nil.
    private var andMask: Int?
    /// Where an icon's AND mask would be when it is present (a 32-bit icon uses it only if its alpha is all 0).
    private let iconMask: Int?
    /// False when a 32-bit image's alpha channel is ignored (all zero): its pixels are opaque, or take the mask.
    private var alphaFromPixels = true
    /// Run-length files: where each stored row's commands start and at which column, nil for a row a move skips.
    private var runStarts: [(offset: Int, x: Int)?] = []
    private var channels = 3

    /// A BMP file (with its 14-byte file header); `bytes` must outlive the decoder.
    convenience init(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodeError) {
        guard bytes.count >= 18 else { throw .truncated }
        let offset = Int(bytes[10]) | Int(bytes[11]) << 8 | Int(bytes[12]) << 16 | Int(bytes[13]) << 24
        try self.init(bytes, header: try BMPHeader(bytes, dib: 14, pixelOffset: offset), icon: false)
    }

    /// The DIB of an ICO entry (`bytes` is the entry): its height counts the AND mask too, which gives ≤ 24-bit
    /// images their transparency.
    convenience init(iconEntry bytes: UnsafeRawBufferPointer) throws(ImageDecodeError) {
        try self.init(bytes, header: try BMPHeader(bytes, dib: 0, pixelOffset: nil), icon: true)
    }

    private init(_ bytes: UnsafeRawBufferPointer, header: BMPHeader, icon: Bool) throws(ImageDecodeError) {
        self.bytes = bytes
        var header = header
        var iconMask: Int?
        if icon && header.compression != .rle8 && header.compression != .rle4 {
            let start = header.pixelOffset + header.stride * header.height
            let maskStride = (header.width + 31) / 32 * 4
            // Some icons leave the mask out; then they are opaque (or use their 32-bit alpha).
            if start + maskStride * header.height <= bytes.count {
                iconMask = start
                header.hasAlpha = true
            }
        }
        self.header = header
        self.iconMask = iconMask
        andMask = header.bitsPerPixel < 32 ? iconMask : nil
        info = ImageInfo(format: .bmp, width: header.width, height: header.height, hasAlpha: header.hasAlpha)
    }

    /// One stored row and one delivered row, and for run-length files the table of row starts.
    func workingMemory(shrink: Double) -> Int {
        let runTable = header.compression == .rle4 || header.compression == .rle8 ? header.height * 24 : 0
        return header.stride + header.width * 4 * 2 + runTable + 4096
    }

    func start(shrink: Double, convertToSRGB: Bool) throws(ImageDecodeError) -> (width: Int, height: Int, channels: Int) {
        switch header.compression {
        case .rle8, .rle4:
            try scanRuns()
        default:
            // Every stored row must be in the data (only the last row's padding may be missing).
            let end = header.pixelOffset + header.stride * (header.height - 1) + header.rowBytes
            guard end <= bytes.count else { throw .truncated }
            if header.hasAlpha && header.bitsPerPixel == 32 && alphaIsAllZero() {
                alphaFromPixels = false
                andMask = iconMask
                header.hasAlpha = iconMask != nil
            }
        }
        channels = header.hasAlpha ? 4 : 3
        return (header.width, header.height, channels)
    }

    /// A 32-bit image whose every alpha value is 0 was written by a tool that leaves the byte unused: it is opaque.
    private func alphaIsAllZero() -> Bool {
        for y in 0..<header.height {
            let row = header.pixelOffset + y * header.stride
            for x in 0..<header.width {
                let at = row + x * 4
                let pixel = UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
                if header.alpha.value(pixel) != 0 { return false }
            }
        }
        return true
    }

    private func storedRow(_ y: Int) -> Int { header.topDown ? y : header.height - 1 - y }

    func readRows(_ consume: (UnsafeBufferPointer<UInt8>) throws(ImageDecodeError) -> Void) throws(ImageDecodeError) {
        let row = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: header.width * 4)
        defer { row.deallocate() }
        for y in 0..<header.height {
            let stored = storedRow(y)
            switch header.compression {
            case .rle8, .rle4: decodeRuns(row: stored, into: row)
            default: decodeRow(at: header.pixelOffset + stored * header.stride, into: row)
            }
            if let andMask { applyMask(at: andMask + stored * ((header.width + 31) / 32 * 4), to: row) }
            if channels == 3 {
                for x in 0..<header.width {
                    row[x * 3] = row[x * 4]
                    row[x * 3 + 1] = row[x * 4 + 1]
                    row[x * 3 + 2] = row[x * 4 + 2]
                }
            }
            try consume(UnsafeBufferPointer(rebasing: row[0..<header.width * channels]))
        }
    }

    /// One uncompressed stored row as RGBA.
    private func decodeRow(at offset: Int, into row: UnsafeMutableBufferPointer<UInt8>) {
        let width = header.width
        let source = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset
        let out = row.baseAddress!
        switch header.bitsPerPixel {
        case 24:
            for x in 0..<width {
                out[x * 4] = source[x * 3 + 2]
                out[x * 4 + 1] = source[x * 3 + 1]
                out[x * 4 + 2] = source[x * 3]
                out[x * 4 + 3] = 255
            }
        case 16, 32:
            let size = header.bitsPerPixel / 8
            let (red, green, blue, alpha) = (header.red, header.green, header.blue, header.alpha)
            let hasAlpha = header.hasAlpha && alphaFromPixels
            for x in 0..<width {
                let at = source + x * size
                var pixel = UInt32(at[0]) | UInt32(at[1]) << 8
                if size == 4 { pixel |= UInt32(at[2]) << 16 | UInt32(at[3]) << 24 }
                out[x * 4] = red.value(pixel)
                out[x * 4 + 1] = green.value(pixel)
                out[x * 4 + 2] = blue.value(pixel)
                out[x * 4 + 3] = hasAlpha ? alpha.value(pixel) : 255
            }
        default:
            let bpp = header.bitsPerPixel
            let perByte = 8 / bpp
            let indexMask = UInt8((1 << bpp) - 1)
            header.palette.withUnsafeBufferPointer { palette in
                for x in 0..<width {
                    let byte = source[x / perByte]
                    let index = Int(byte >> UInt8(8 - bpp * (x % perByte + 1)) & indexMask)
                    out[x * 4] = palette[index * 3]
                    out[x * 4 + 1] = palette[index * 3 + 1]
                    out[x * 4 + 2] = palette[index * 3 + 2]
                    out[x * 4 + 3] = 255
                }
            }
        }
    }

    /// An icon's AND mask: a set bit makes the pixel transparent.
    private func applyMask(at offset: Int, to row: UnsafeMutableBufferPointer<UInt8>) {
        for x in 0..<header.width where bytes[offset + x / 8] & (0x80 >> UInt8(x % 8)) != 0 {
            row[x * 4 + 3] = 0
        }
    }

    // MARK: Run-length

    /// Walks the commands once, noting where each stored row's commands start. Rows a move jumps over have none.
    /// Data that ends before the last row (and no end-of-bitmap) is truncated.
    private func scanRuns() throws(ImageDecodeError) {
        var starts = [(offset: Int, x: Int)?](repeating: nil, count: header.height)
        let four = header.compression == .rle4
        var at = header.pixelOffset, row = 0, x = 0
        starts[0] = (at, 0)
        scan: while row < header.height {
            guard at + 2 <= bytes.count else { throw .truncated }
            let count = Int(bytes[at]), code = Int(bytes[at + 1])
            at += 2
            if count > 0 {
                x = min(x + count, header.width)
                continue
            }
            switch code {
            case 0:  // end of line
                row += 1
                x = 0
                if row < header.height { starts[row] = (at, 0) }
            case 1:  // end of bitmap: the rows left stay empty
                break scan
            case 2:  // move right dx and up dy rows (toward the top: stored rows grow upward)
                guard at + 2 <= bytes.count else { throw .truncated }
                let dx = Int(bytes[at]), dy = Int(bytes[at + 1])
                at += 2
                x = min(x + dx, header.width)
                if dy > 0 {
                    row += dy
                    if row < header.height { starts[row] = (at, x) }
                }
            default:  // an absolute run of `code` pixels, padded to an even byte count
                let length = four ? (code + 1) / 2 : code
                at += (length + 1) & ~1
                guard at <= bytes.count else { throw .truncated }
                x = min(x + code, header.width)
            }
        }
        runStarts = starts
    }

    /// One stored row from its commands: until end of line or bitmap, or a move to another row.
    private func decodeRuns(row stored: Int, into row: UnsafeMutableBufferPointer<UInt8>) {
        let transparent: UInt8 = header.hasAlpha ? 0 : 255
        for x in 0..<header.width {
            row[x * 4] = 0; row[x * 4 + 1] = 0; row[x * 4 + 2] = 0; row[x * 4 + 3] = transparent
        }
        guard let start = runStarts[stored] else { return }
        let four = header.compression == .rle4
        let width = header.width
        var at = start.offset, x = start.x
        header.palette.withUnsafeBufferPointer { palette in
            func put(_ index: Int) {
                guard x < width else { return }
                row[x * 4] = palette[index * 3]
                row[x * 4 + 1] = palette[index * 3 + 1]
                row[x * 4 + 2] = palette[index * 3 + 2]
                row[x * 4 + 3] = 255
                x += 1
            }
            // scanRuns checked every command of the rows it reached, so these reads stay inside the data.
            while at + 2 <= bytes.count {
                let count = Int(bytes[at]), code = Int(bytes[at + 1])
                at += 2
                if count > 0 {
                    let end = min(x + count, width)
                    var i = 0
                    while x < end {
                        put(four ? Int(i % 2 == 0 ? code >> 4 : code & 15) : code)
                        i += 1
                    }
                    continue
                }
                switch code {
                case 0, 1: return
                case 2:
                    guard at + 2 <= bytes.count else { return }
                    if bytes[at + 1] > 0 { return }
                    x = min(x + Int(bytes[at]), width)
                    at += 2
                default:
                    let length = four ? (code + 1) / 2 : code
                    guard at + length <= bytes.count else { return }
                    for i in 0..<code {
                        let byte = Int(bytes[at + (four ? i / 2 : i)])
                        put(four ? (i % 2 == 0 ? byte >> 4 : byte & 15) : byte)
                    }
                    at += (length + 1) & ~1
                }
            }
        }
    }
}
