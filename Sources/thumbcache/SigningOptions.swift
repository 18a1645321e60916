import ArgumentParser
import Foundation
import ThumbcacheServer

/// `--key` and `--salt` (or THUMBCACHE_KEY / THUMBCACHE_SALT), for commands that sign serve paths as the server checks them.
struct SigningOptions: ParsableArguments {
    @Option(help: ArgumentHelp(EnvironmentFallback.help("HMAC key in hex.", flag: "key"), valueName: "hex"))
    var key: String?

    @Option(help: ArgumentHelp(EnvironmentFallback.help("Salt in hex.", flag: "salt"), valueName: "hex"))
    var salt: String?

    @Option(help: ArgumentHelp(EnvironmentFallback.help(
        "Keep the HMAC's first this many bytes, 1-32, as serve's --signature-size (default: 32).", flag: "signature-size"),
        valueName: "bytes"))
    var signatureSize: Int?

    /// The signer; without a key, paths are signed `unsafe`. A bad key or salt is a usage error.
    func signer() throws -> URLSigner {
        let keyBytes = try EnvironmentFallback.value(key, flag: "key", emptyIsError: true).map { hex in
            guard let bytes = URLSigner.bytes(fromHex: hex), !bytes.isEmpty else {
                throw Console.Failure(description: "--key must be hex digits", exitCode: Console.Status.usage)
            }
            return bytes
        }
        let saltBytes = try EnvironmentFallback.value(salt, flag: "salt", emptyIsError: true).map { hex in
            guard let bytes = URLSigner.bytes(fromHex: hex) else {
                throw Console.Failure(description: "--salt must be hex digits", exitCode: Console.Status.usage)
            }
            return bytes
        } ?? Data()
        let size = try EnvironmentFallback.value(signatureSize, flag: "signature-size", in: URLSigner.signatureSizes) ?? 32
        return URLSigner(key: keyBytes, salt: saltBytes, signatureSize: size)
    }
}
