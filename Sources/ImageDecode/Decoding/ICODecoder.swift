/// Reads an ICO (or CUR) file's largest image: the directory entry with the most pixels, then the most bits a pixel,
/// among those whose data lies inside the file. A PNG entry is read by `PNGDecoder`, a BMP entry by `BMPDecoder`
/// (its AND mask is the transparency of ≤ 24-bit images). The entry's own header decides the size, so a PNG that
/// claims more than the directory says is still held to the pixel limit.
final class ICODecoder: RowDecoder {
    let info: ImageInfo
    var rowProfile: ColorProfile? { entry.rowProfile }
    private let entry: any RowDecoder

    /// `bytes` must outlive the decoder.
    init(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodeError) {
        let chosen = try Self.largestEntry(bytes)
        let data = UnsafeRawBufferPointer(rebasing: bytes[chosen.offset..<chosen.offset + chosen.size])
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            entry = try PNGDecoder(data)
        } else {
            entry = try BMPDecoder(iconEntry: data)
        }
        var info = entry.info
        info.format = .ico
        self.info = info
    }

    /// The directory's entries are 16 bytes each after a 6-byte header: width and height (0 means 256), colours,
    /// reserved, planes, bits a pixel, the data's size and offset.
    private static func largestEntry(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodeError) -> (offset: Int, size: Int) {
        guard bytes.count >= 6 else { throw .truncated }
        let count = Int(bytes[4]) | Int(bytes[5]) << 8
        guard count > 0 else { throw .corrupt("the ICO directory has no entries") }
        guard 6 + count * 16 <= bytes.count else { throw .truncated }
        func u32(_ at: Int) -> Int {
            Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        var best: (pixels: Int, bits: Int, offset: Int, size: Int)?
        for index in 0..<count {
            let at = 6 + index * 16
            let width = bytes[at] == 0 ? 256 : Int(bytes[at])
            let height = bytes[at + 1] == 0 ? 256 : Int(bytes[at + 1])
            let bits = Int(bytes[at + 6]) | Int(bytes[at + 7]) << 8
            let size = u32(at + 8), offset = u32(at + 12)
            // An entry whose data is not inside the file is passed over.
            guard size > 0, offset >= 6 + count * 16, offset <= bytes.count, size <= bytes.count - offset else { continue }
            let candidate = (width * height, bits, offset, size)
            if let current = best, (current.pixels, current.bits) >= (candidate.0, candidate.1) { continue }
            best = candidate
        }
        guard let best else { throw .truncated }
        return (best.offset, best.size)
    }

    func workingMemory(shrink: Double) -> Int { entry.workingMemory(shrink: shrink) }

    func start(shrink: Double, convertToSRGB: Bool) throws(ImageDecodeError) -> (width: Int, height: Int, channels: Int) {
        try entry.start(shrink: shrink, convertToSRGB: convertToSRGB)
    }

    func readRows(_ consume: (UnsafeBufferPointer<UInt8>) throws(ImageDecodeError) -> Void) throws(ImageDecodeError) {
        try entry.readRows(consume)
    }

    var decodedExtent: (width: Double, height: Double)? { entry.decodedExtent }
}
