import ArgumentParser
import Foundation
import ImageDecode
import ThumbcacheServer

/// `thumbcache sign SOURCE_URL --size N`: the path `thumbcache serve` answers for that thumbnail.
struct SignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Print the serve path of a thumbnail: /<signature>/<size>/<fit>/<source>[.<format>].",
        discussion: "With --key and --salt (or THUMBCACHE_KEY and THUMBCACHE_SALT) the path is signed as the server checks it; without, its signature is 'unsafe'."
    )

    @Argument(help: "http(s) URL of the original.")
    var source: String

    @Option(help: "Longest side (contain) or the square's side (cover), in pixels.")
    var size: Int

    @Option(help: "contain or cover (default: contain).")
    var fit: FitMode = .contain

    @Option(help: "jpeg, png, webp or avif (default: the server chooses from the Accept header).")
    var format: ImageFormat?

    @OptionGroup var signing: SigningOptions

    func run() async throws {
        guard size >= 1 else { throw Console.Failure(description: "--size must be at least 1", exitCode: Console.Status.usage) }
        // What serve would refuse is refused here, rather than printing a path that answers 400 or 403.
        if let format, !format.isEncodable {
            throw Console.Failure(description: "--format \(format.rawValue) is read, never written: use jpeg, png, webp or avif",
                                  exitCode: Console.Status.usage)
        }
        do throws(ServeError) { _ = try ThumbcacheEndpoints.source(source) } catch {
            throw Console.Failure(description: "\(source.prefix(60)): \(error.message)", exitCode: Console.Status.usage)
        }
        var path = ThumbnailPath(signature: "", size: size, fit: fit, source: source, format: format)
        path.signature = try signing.signer().signature(for: path.signedPart)
        try Console.print(path.path)
    }
}
