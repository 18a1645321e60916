/// A BMP's DIB header, palette and bit fields, read and checked against the bytes that hold them (nothing is
/// allocated from what the header claims). The header kinds: OS/2 core (12 bytes), BITMAPINFOHEADER (40), its
/// OS/2 2.x and Adobe extensions (16-64) and V4/V5 (108, 124). Bit depths 1, 2, 4 and 8 (palette), 16 and 32
/// (bit fields, 5-5-5 by default for 16), 24; BI_RGB, RLE8, RLE4, BITFIELDS and ALPHABITFIELDS. Which pixels are
/// read follows imgproxy's BMP reader: a palette over 2^bpp entries is refused, a 32-bit BI_RGB image has alpha
/// (unless a V4/V5 header's alpha mask is zero). Unlike it, an all-zero alpha channel is read as opaque (writers
/// that leave the fourth byte 0 mean no alpha).
struct BMPHeader {
    enum Compression: UInt32 { case rgb = 0, rle8 = 1, rle4 = 2, bitfields = 3, alphaBitfields = 6 }

    /// One colour channel's place in a 16- or 32-bit pixel.
    struct BitField {
        let mask: UInt32
        let shift: UInt32
        let bits: UInt32

        init(_ mask: UInt32) {
            self.mask = mask
            shift = mask == 0 ? 0 : UInt32(mask.trailingZeroBitCount)
            bits = mask == 0 ? 0 : UInt32((mask >> shift).trailingOneBitCount())
        }

        /// The channel scaled to 8 bits (a 5-bit 31 becomes 255).
        @inline(__always) func value(_ pixel: UInt32) -> UInt8 {
            guard bits > 0 else { return 0 }
            let raw = (pixel & mask) >> shift & ((1 << bits) - 1)
            if bits >= 8 { return UInt8(truncatingIfNeeded: raw >> (bits - 8)) }
            return UInt8((raw * 255 + ((1 << bits) - 1) / 2) / ((1 << bits) - 1))
        }
    }

    let width: Int
    let height: Int
    /// Rows stored top row first (a negative height); BMP's default is bottom row first.
    let topDown: Bool
    let bitsPerPixel: Int
    let compression: Compression
    /// RGB triples, at most 2^bpp of them.
    let palette: [UInt8]
    let red: BitField, green: BitField, blue: BitField, alpha: BitField
    var hasAlpha: Bool
    /// Where the pixel rows start, and bytes from one stored row to the next (rows are padded to 4 bytes).
    let pixelOffset: Int
    let stride: Int

    /// `dib` starts at the DIB header; `pixelOffset` is the file header's offset (nil for an icon entry, whose
    /// rows follow the palette or masks; its height counts the AND mask's rows too, and is halved).
    init(_ bytes: UnsafeRawBufferPointer, dib: Int, pixelOffset declared: Int?) throws(ImageDecodeError) {
        func u16(_ at: Int) throws(ImageDecodeError) -> Int {
            guard at >= 0, at + 2 <= bytes.count else { throw .truncated }
            return Int(bytes[at]) | Int(bytes[at + 1]) << 8
        }
        func u32(_ at: Int) throws(ImageDecodeError) -> UInt32 {
            guard at >= 0, at + 4 <= bytes.count else { throw .truncated }
            return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        let size = Int(try u32(dib))
        var width: Int, height: Int, bpp: Int, planes: Int
        var compressionValue: UInt32 = 0, colorsUsed = 0
        if size == 12 {
            width = try u16(dib + 4)
            height = try u16(dib + 6)
            planes = try u16(dib + 8)
            bpp = try u16(dib + 10)
        } else if size >= 16 && size <= 124 {
            width = Int(Int32(bitPattern: try u32(dib + 4)))
            height = Int(Int32(bitPattern: try u32(dib + 8)))
            planes = try u16(dib + 12)
            bpp = try u16(dib + 14)
            if size >= 20 { compressionValue = try u32(dib + 16) }
            if size >= 36 { colorsUsed = Int(try u32(dib + 32)) }
        } else {
            throw .corrupt("BMP header of \(size) bytes (known: 12, 16-64, 108, 124)")
        }
        guard planes == 1 else { throw .unsupported("BMP with \(planes) planes (only 1 is defined)") }
        guard [1, 2, 4, 8, 16, 24, 32].contains(bpp) else {
            throw .unsupported("BMP with \(bpp) bits per pixel (1, 2, 4, 8, 16, 24 and 32 are read)")
        }
        guard let compression = Compression(rawValue: compressionValue) else {
            throw .unsupported("BMP compression \(compressionValue) (BI_RGB, RLE8, RLE4 and BITFIELDS are read; "
                               + "JPEG and PNG inside BMP are not)")
        }
        switch compression {
        case .rle8 where bpp != 8, .rle4 where bpp != 4:
            throw .corrupt("BMP run-length compression \(compression) with \(bpp) bits per pixel")
        case .bitfields where bpp != 16 && bpp != 32, .alphaBitfields where bpp != 16 && bpp != 32:
            throw .corrupt("BMP bit fields with \(bpp) bits per pixel (only 16 and 32 have them)")
        default: break
        }
        let isIcon = declared == nil
        topDown = height < 0 && !isIcon
        height = abs(height)
        if isIcon { height /= 2 }
        guard width > 0, height > 0 else { throw .corrupt("BMP with a zero or negative width or height") }
        guard !(topDown && (compression == .rle8 || compression == .rle4)) else {
            throw .corrupt("a run-length compressed BMP cannot be stored top-down")
        }
        // Bit fields: inside a header of 52 bytes or more, else right after a 40-byte one.
        var masks: [UInt32] = [0, 0, 0, 0]
        var afterHeader = dib + size
        if compression == .bitfields || compression == .alphaBitfields {
            if size >= 52 {
                for i in 0..<(size >= 56 ? 4 : 3) { masks[i] = try u32(dib + 40 + 4 * i) }
            } else {
                let count = compression == .alphaBitfields ? 4 : 3
                for i in 0..<count { masks[i] = try u32(afterHeader + 4 * i) }
                afterHeader += 4 * count
            }
            guard masks[0] | masks[1] | masks[2] != 0 else { throw .corrupt("BMP bit fields are all zero") }
        } else if bpp == 16 {
            masks = [0x7C00, 0x03E0, 0x001F, 0]
        } else if bpp == 32 {
            // BI_RGB: B, G, R and (imgproxy) alpha bytes; a V4/V5 header's alpha mask says whether there is one.
            masks = [0x00FF_0000, 0x0000_FF00, 0x0000_00FF, size >= 56 ? try u32(dib + 52) : 0xFF00_0000]
        }
        red = BitField(masks[0])
        green = BitField(masks[1])
        blue = BitField(masks[2])
        alpha = BitField(masks[3])
        hasAlpha = (bpp == 16 || bpp == 32) && masks[3] != 0
        // The palette: 2^bpp entries unless fewer are declared; 3 bytes each under a core header, else 4.
        var palette: [UInt8] = []
        if bpp <= 8 {
            let maximum = 1 << bpp
            let count = colorsUsed == 0 ? maximum : colorsUsed
            guard count <= maximum else {
                throw .corrupt("BMP palette of \(count) colours for \(bpp) bits per pixel (at most \(maximum))")
            }
            let entry = size == 12 ? 3 : 4
            // Some writers declare none and store fewer than 2^bpp: read what fits before the pixels.
            var stored = count
            if let declared, declared > afterHeader { stored = min(count, (declared - afterHeader) / entry) }
            guard afterHeader + stored * entry <= bytes.count else { throw .truncated }
            palette.reserveCapacity(maximum * 3)
            for i in 0..<stored {
                let at = afterHeader + i * entry
                palette += [bytes[at + 2], bytes[at + 1], bytes[at]]
            }
            // Indices past the stored palette are black, as imgproxy's zeroed palette gives.
            palette += [UInt8](repeating: 0, count: (maximum - stored) * 3)
            afterHeader += stored * entry
        }
        self.palette = palette
        self.width = width
        self.height = height
        bitsPerPixel = bpp
        self.compression = compression
        pixelOffset = declared ?? afterHeader
        stride = (width * bpp + 31) / 32 * 4
        guard pixelOffset >= 0, pixelOffset <= bytes.count else { throw .truncated }
    }

    /// Bytes of one stored row that hold pixels (the last row's padding may be missing).
    var rowBytes: Int { (width * bitsPerPixel + 7) / 8 }
}

private extension UInt32 {
    func trailingOneBitCount() -> Int { (~self).trailingZeroBitCount }
}
