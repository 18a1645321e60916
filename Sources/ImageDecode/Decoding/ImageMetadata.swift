import CJpegPngGlue

/// The metadata a source carries beside its pixels, as read from its header: what an output may write again
/// (`MetadataPolicy` decides what it does). Every part is optional; none is interpreted here.
public struct ImageMetadata: Sendable, Equatable {
    /// A TIFF-structured EXIF block ("II*\0" or "MM\0*"), without the "Exif\0\0" prefix JPEG and some PNG writers add.
    public var exif: [UInt8]?
    /// An XMP packet (JPEG APP1, WebP "XMP ", AVIF's XMP item; PNG's iTXt is not read: text chunks are skipped).
    public var xmp: [UInt8]?
    /// The embedded ICC profile, when LittleCMS can read it (an unreadable one is ignored, as for conversion).
    var colorProfile: ColorProfile?

    public init(exif: [UInt8]? = nil, xmp: [UInt8]? = nil) {
        self.exif = exif.map(Self.strippingExifPrefix)
        self.xmp = xmp
    }

    /// Metadata whose EXIF holds only IFD0's Artist and Copyright (none when both are nil).
    public init(artist: String?, copyright: String?) {
        self.init(exif: EXIF.copyrightBlock(artist: artist.map { Array($0.utf8) }, copyright: copyright.map { Array($0.utf8) }))
    }

    init(exif: [UInt8]?, xmp: [UInt8]?, colorProfile: ColorProfile?) {
        self.init(exif: exif, xmp: xmp)
        self.colorProfile = colorProfile
    }

    /// The embedded ICC profile's bytes.
    public var iccProfile: [UInt8]? { colorProfile?.bytes }

    /// EXIF IFD0's Copyright and Artist, nil when absent.
    public var copyright: String? { exif.flatMap { EXIF.copyright($0).copyright } }
    public var artist: String? { exif.flatMap { EXIF.copyright($0).artist } }

    public var isEmpty: Bool { exif == nil && xmp == nil && colorProfile == nil }

    public static func == (lhs: ImageMetadata, rhs: ImageMetadata) -> Bool {
        lhs.exif == rhs.exif && lhs.xmp == rhs.xmp && lhs.iccProfile == rhs.iccProfile
    }

    /// A copy of `length` bytes the glue points at, nil for none.
    static func bytes(_ pointer: UnsafePointer<UInt8>?, _ length: Int) -> [UInt8]? {
        guard let pointer, length > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: pointer, count: length))
    }

    private static func strippingExifPrefix(_ exif: [UInt8]) -> [UInt8] {
        exif.starts(with: Array("Exif\0\0".utf8)) ? Array(exif.dropFirst(6)) : exif
    }

    /// Lends the parts to a C encoder as `tc_metadata`; the ICC profile only when its colour space is the output's
    /// (grey for one or two channels, RGB for three or four): a profile of another space would misdescribe the pixels.
    func withGlue<Result>(grey: Bool, _ body: (UnsafePointer<tc_metadata>?) throws(ImageDecodeError) -> Result)
        throws(ImageDecodeError) -> Result {
        guard !isEmpty else { return try body(nil) }
        let profile = colorProfile.flatMap { $0.space == (grey ? .gray : .rgb) ? $0.bytes : nil } ?? []
        let exif = exif ?? [], xmp = xmp ?? []
        let outcome: Swift.Result<Result, ImageDecodeError> = exif.withUnsafeBufferPointer { exif in
            xmp.withUnsafeBufferPointer { xmp in
                profile.withUnsafeBufferPointer { icc in
                    var glue = tc_metadata(exif: exif.baseAddress, exif_size: exif.count, xmp: xmp.baseAddress,
                                           xmp_size: xmp.count, icc: icc.baseAddress, icc_size: icc.count)
                    do throws(ImageDecodeError) { return .success(try body(&glue)) } catch { return .failure(error) }
                }
            }
        }
        return try outcome.get()
    }
}
