import ArgumentParser
import ThumbcacheKit

/// Options of the commands that download originals (`get`, `warm`).
struct FetchOptions: ParsableArguments {
    static let defaultMaxDownloadSize = ByteCount(bytes: 50_000_000)

    @Option(help: ArgumentHelp(
        "Largest download accepted, e.g. 200MB (default: \(defaultMaxDownloadSize)).", discussion: ByteCount.help, valueName: "size"),
        transform: { try ByteCount(parsing: $0) })
    var maxDownloadSize: ByteCount = defaultMaxDownloadSize

    @Option(name: .customLong("ca-file"), help: ArgumentHelp(
        "PEM file of certificate authorities to trust for https origins, beside the system's (repeatable).",
        valueName: "pem"))
    var caFiles: [String] = []

    func apply(to configuration: inout PipelineConfiguration) {
        configuration.fetchLimits.maxDownloadBytes = Int(maxDownloadSize.bytes)
        configuration.trustedCAFiles = caFiles
    }
}
