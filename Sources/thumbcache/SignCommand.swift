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

    @Option(help: ArgumentHelp(EnvironmentFallback.help("HMAC key in hex.", flag: "key"), valueName: "hex"))
    var key: String?

    @Option(help: ArgumentHelp(EnvironmentFallback.help("Salt in hex.", flag: "salt"), valueName: "hex"))
    var salt: String?

    func run() async throws {
        guard size >= 1 else { throw Console.Failure(description: "--size must be at least 1", exitCode: Console.Status.usage) }
        let keyBytes = try EnvironmentFallback.value(key, flag: "key").map { hex in
            guard let bytes = URLSigner.bytes(fromHex: hex), !bytes.isEmpty else {
                throw Console.Failure(description: "--key must be hex digits", exitCode: Console.Status.usage)
            }
            return bytes
        }
        let saltBytes = try EnvironmentFallback.value(salt, flag: "salt").map { hex in
            guard let bytes = URLSigner.bytes(fromHex: hex) else {
                throw Console.Failure(description: "--salt must be hex digits", exitCode: Console.Status.usage)
            }
            return bytes
        } ?? Data()
        var path = ThumbnailPath(signature: "", size: size, fit: fit, source: source, format: format)
        path.signature = URLSigner(key: keyBytes, salt: saltBytes).signature(for: path.signedPart)
        try Console.print(path.path)
    }
}
