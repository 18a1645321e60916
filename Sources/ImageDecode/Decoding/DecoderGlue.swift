import CJpegPngGlue

/// What the WebP, GIF and AVIF decoders share around their C glue: opening a handle, reading metadata
/// the glue hands out as pointers, and handing out a frame decoded whole as rows.
enum DecoderGlue {
    /// Creates a C decoder over `bytes` (which must outlive it) and reads its header; the handle belongs to the caller.
    static func open<Header>(
        _ bytes: UnsafeRawBufferPointer, empty: Header,
        create: (UnsafePointer<UInt8>, Int) -> OpaquePointer?,
        read: (OpaquePointer, UnsafeMutablePointer<Header>) -> tc_status,
        message: (OpaquePointer) -> UnsafePointer<CChar>?, destroy: (OpaquePointer) -> Void
    ) throws(ImageDecodeError) -> (handle: OpaquePointer, header: Header) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let handle = create(base, bytes.count) else { throw .outOfMemory }
        var header = empty
        try readHeader(handle, into: &header, read: read, message: message, destroy: destroy)
        return (handle, header)
    }

    /// Reads the header through `read`; on failure the handle is destroyed and the glue's message thrown.
    static func readHeader<Header>(
        _ handle: OpaquePointer, into header: inout Header,
        read: (OpaquePointer, UnsafeMutablePointer<Header>) -> tc_status,
        message: (OpaquePointer) -> UnsafePointer<CChar>?, destroy: (OpaquePointer) -> Void
    ) throws(ImageDecodeError) {
        let status = read(handle, &header)
        guard status == TC_OK else {
            let error = ImageDecoder.error(status, message: message(handle))
            destroy(handle)
            throw error
        }
    }

    /// The EXIF orientation in a TIFF block the glue points at, if any.
    static func orientation(_ exif: UnsafePointer<UInt8>?, length: Int) -> Orientation? {
        exif.flatMap { EXIF.orientation(tiff: UnsafeRawBufferPointer(start: $0, count: length)) }
    }

    /// A copy of the ICC profile the glue points at, if LittleCMS can read it.
    static func profile(_ icc: UnsafePointer<UInt8>?, length: Int) -> ColorProfile? {
        icc.flatMap { ColorProfile(Array(UnsafeBufferPointer(start: $0, count: length))) }
    }

    /// The ICC profile, Exif and XMP the glue hands out, for a library that turns the pixels upright itself (libheif,
    /// libjxl): the Exif orientation is reset to 1, so neither the renderer nor a viewer of a kept copy turns them again.
    static func uprightMetadata(
        icc: (UnsafeMutablePointer<Int>) -> UnsafePointer<UInt8>?, exif: (UnsafeMutablePointer<Int>) -> UnsafePointer<UInt8>?,
        xmp: (UnsafeMutablePointer<Int>) -> UnsafePointer<UInt8>?
    ) -> ImageMetadata {
        var iccLength = 0, exifLength = 0, xmpLength = 0
        let profile = DecoderGlue.profile(icc(&iccLength), length: iccLength)
        return ImageMetadata(exif: ImageMetadata.bytes(exif(&exifLength), exifLength).map(EXIF.resettingOrientation),
                             xmp: ImageMetadata.bytes(xmp(&xmpLength), xmpLength), colorProfile: profile)
    }

    /// Allocates a whole frame, lets `decode` fill it (rows `stride` bytes apart), then hands out its rows.
    static func decodeWhole(
        height: Int, stride: Int, _ consume: (UnsafeBufferPointer<UInt8>) throws(ImageDecodeError) -> Void,
        decode: (UnsafeMutablePointer<UInt8>) -> tc_status, message: () -> UnsafePointer<CChar>?
    ) throws(ImageDecodeError) {
        let frame = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: stride * height)
        defer { frame.deallocate() }
        let status = decode(frame.baseAddress!)
        guard status == TC_OK else { throw ImageDecoder.error(status, message: message()) }
        for y in 0..<height {
            try consume(UnsafeBufferPointer(rebasing: frame[y * stride..<(y + 1) * stride]))
        }
    }
}
