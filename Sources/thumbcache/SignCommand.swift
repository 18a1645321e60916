import ArgumentParser
import Foundation
import ImageDecode
import ThumbcacheKit
import ThumbcacheServer

/// `thumbcache sign SOURCE_URL --size N`: the path `thumbcache serve` answers for that thumbnail.
struct SignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Print the serve path of a thumbnail (/<signature>/<size>/<fit>/<source>[.<format>]) or, with --options, of a processed image (imgproxy's /<signature>/<options>/<source>[.<format>]).",
        discussion: "With --key and --salt (or THUMBCACHE_KEY and THUMBCACHE_SALT) the path is signed as the server checks it; without, its signature is 'unsafe'. Processing paths are exactly what imgproxy's URL builders make, so either signs for the other."
    )

    @Argument(help: "http(s) URL of the original.")
    var source: String

    @Option(help: "Longest side (contain) or the square's side (cover), in pixels.")
    var size: Int?

    @Option(help: ArgumentHelp("imgproxy processing options instead of --size, e.g. rs:fill:300:200/g:sm (docs/processing.md).",
                               valueName: "options"))
    var options: String?

    @Flag(help: "With --options: the source as plain/<percent-encoded URL>[@<format>] instead of base64url.")
    var plain = false

    @Option(help: "contain or cover (default: contain).")
    var fit: FitMode = .contain

    @Option(help: "\(ImageFormat.names(ImageFormat.askable)) (svg with --options only; default: the server chooses from the Accept header).")
    var format: ImageFormat?

    @OptionGroup var signing: SigningOptions

    func run() async throws {
        if size == nil && options == nil || size != nil && options != nil {
            throw Console.Failure(description: "give --size N or --options LIST", exitCode: Console.Status.usage)
        }
        if let size, size < 1 { throw Console.Failure(description: "--size must be at least 1", exitCode: Console.Status.usage) }
        // What serve would refuse is refused here, rather than printing a path that answers 400 or 403.
        // A processing URL may ask for svg (an SVG source passed through); the short grammar's formats are encoded.
        let writable = options == nil ? ImageFormat.encodable : ImageFormat.askable
        if let format, !writable.contains(format) {
            throw Console.Failure(description: "--format \(format.rawValue) is never written: use \(ImageFormat.names(writable))",
                                  exitCode: Console.Status.usage)
        }
        // A local source is checked as any server with a local root checks it (which root does not matter here).
        let names = SourceNames(localRoot: source.lowercased().hasPrefix(SourceNames.localScheme) ? "/" : nil)
        do throws(ServeError) { _ = try names.source(source) } catch {
            throw Console.Failure(description: "\(source.prefix(60)): \(error.message)", exitCode: Console.Status.usage)
        }
        let signer = try signing.signer()
        if let options {
            let signed = try processingPart(options)
            try Console.print("/" + signer.signature(for: signed) + signed)
            return
        }
        var path = ThumbnailPath(signature: "", size: size ?? 1, fit: fit, source: source, format: format)
        path.signature = signer.signature(for: path.signedPart)
        try Console.print(path.path)
    }

    /// `/<options>/<source>[.<format>]` (or `/<options>/plain/<source>[@<format>]`), checked by the parser serve uses:
    /// presets are the server's, so only an unknown preset is let through.
    private func processingPart(_ options: String) throws -> String {
        let list = options.split(separator: "/").joined(separator: "/")
        let encoded = plain
            ? "plain/" + Self.percentEncoded(source) + (format.map { "@" + $0.rawValue } ?? "")
            : Base64URL.encode(source) + (format.map { "." + $0.rawValue } ?? "")
        let signed = "/" + (list.isEmpty ? "" : list + "/") + encoded
        do {
            _ = try ProcessingPath(path: "/sig" + signed)
        } catch ProcessingError.unknownPreset {
        } catch {
            throw Console.Failure(description: "--options: \(error)", exitCode: Console.Status.usage)
        }
        return signed
    }

    /// A plain source as imgproxy's builders write it: URL characters kept, `%`, `?`, `#`, `@` and spaces escaped
    /// (`@` would start the extension).
    static func percentEncoded(_ source: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "%?#@ ")
        allowed.insert(charactersIn: ":/")
        return source.addingPercentEncoding(withAllowedCharacters: allowed) ?? source
    }
}
