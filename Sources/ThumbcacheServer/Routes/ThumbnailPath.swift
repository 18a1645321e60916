import ImageDecode

/// `/<signature>/<size>/<fit>/<source>[.<format>]`, parsed. The grammar is fixed (README, serve section):
/// the source is one base64url segment without padding, so any URL fits in one path segment.
package struct ThumbnailPath: Sendable, Equatable {
    package var signature: String
    package var size: Int
    package var fit: FitMode
    /// The source URL as the client wrote it (decoded from base64url).
    package var source: String
    /// The source segment as it came (what purge routes and balancers hash on).
    package var encodedSource: String
    package var format: ImageFormat? {
        didSet { extensionName = format?.rawValue }
    }
    /// The extension as written: any of the format's names (`jpg` for JPEG, `tif`), which the signature covers.
    private var extensionName: String?

    /// What the signature covers: everything after it, leading slash included (imgproxy's construction).
    package var signedPart: String {
        "/\(size)/\(fit.rawValue)/\(encodedSource)" + (extensionName.map { ".\($0)" } ?? "")
    }

    package init(signature: String, size: Int, fit: FitMode, source: String, format: ImageFormat?) {
        self.signature = signature
        self.size = size
        self.fit = fit
        self.source = source
        self.encodedSource = Base64URL.encode(source)
        self.format = format
        extensionName = format?.rawValue
    }

    /// Parses the path's segments (without the leading slash); every failure is a 400 that says which part.
    package init(segments: [Substring], maxSize: Int) throws(ServeError) {
        guard segments.count == 4 else {
            throw .badRequest("expected /<signature>/<size>/<fit>/<source>[.<format>], got \(segments.count) path segments")
        }
        signature = String(segments[0])
        guard let size = Int(segments[1]), String(size) == segments[1], (1...maxSize).contains(size) else {
            throw .badRequest("size must be a whole number of pixels from 1 to \(maxSize), got \"\(segments[1].prefix(20))\"")
        }
        self.size = size
        guard let fit = FitMode(rawValue: String(segments[2])) else {
            throw .badRequest("fit must be contain or cover, got \"\(segments[2].prefix(20))\"")
        }
        self.fit = fit
        var encoded = segments[3]
        format = nil
        if let dot = encoded.lastIndex(of: ".") {
            let name = encoded[encoded.index(after: dot)...]
            guard let format = Self.format(named: name) else {
                throw .badRequest("format must be \(ImageFormat.names(ImageFormat.encodable)), got \"\(name.prefix(20))\"")
            }
            self.format = format
            extensionName = String(name)
            encoded = encoded[..<dot]
        }
        guard let data = Base64URL.decode(encoded), !data.isEmpty, let source = String(data: data, encoding: .utf8) else {
            throw .badRequest("the source must be a URL encoded as base64url without padding")
        }
        self.source = source
        encodedSource = String(encoded)
    }

    /// A format by any of its names (`ImageFormat(name:)`), when thumbnails are written in it.
    static func format(named name: Substring) -> ImageFormat? {
        ImageFormat(name: name).flatMap { $0.isEncodable ? $0 : nil }
    }

    /// The path a client requests.
    package var path: String { "/\(signature)\(signedPart)" }
}
