import Foundation

/// The guard of a negotiated format (a server's choice from `Accept`): the image is also encoded in the format it
/// would have had without negotiation, and that one is answered when the negotiated encoding is more than
/// `allowedGrowth` times its bytes. A client that says it takes AVIF is then never sent a bigger file than one
/// that does not (issue 20: at one quality for all formats, a 256 px AVIF was a median 1.14x the JPEG's bytes).
public struct FormatFallback: Sendable, Hashable {
    /// The format answered without negotiation; nil: the image's own default (JPEG, or PNG when it has alpha).
    public var format: ImageFormat?
    /// The quality it is encoded at (a server's default for it; PNG ignores it).
    public var quality: Int

    /// A few percent: what a smaller file format saves in headers alone is not worth a second format's answer.
    public static let allowedGrowth = 1.03

    public init(format: ImageFormat? = nil, quality: Int) {
        (self.format, self.quality) = (format, quality)
    }

    /// Whether the negotiated encoding of `negotiatedBytes` is answered rather than the fallback's of
    /// `fallbackBytes`: the one place the comparison is made (a render's, and a cache's choice between stored ones).
    public static func keepsNegotiated(_ negotiatedBytes: Int, over fallbackBytes: Int) -> Bool {
        Double(negotiatedBytes) <= Double(fallbackBytes) * allowedGrowth
    }

    /// The answer: `negotiated` (encoded as `format`), unless the image encoded as `fallback` by `encodeFallback`
    /// is enough smaller (`keepsNegotiated`); `declined` is the other encoding, for a cache that keeps both.
    public static func answer(_ negotiated: Data, as format: ImageFormat, fallback: ImageFormat,
                              encodeFallback: () throws(ImageDecodeError) -> Data) throws(ImageDecodeError)
        -> (data: Data, format: ImageFormat, declined: Thumbnail.Encoding?)
    {
        guard fallback != format else { return (negotiated, format, nil) }
        let other = try encodeFallback()
        return keepsNegotiated(negotiated.count, over: other.count)
            ? (negotiated, format, Thumbnail.Encoding(data: other, format: fallback))
            : (other, fallback, Thumbnail.Encoding(data: negotiated, format: format))
    }
}
