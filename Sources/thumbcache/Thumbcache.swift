import ArgumentParser

/// Root command; each subcommand lives in its own file.
@main
struct Thumbcache: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbcache",
        abstract: "Image thumbnail caching service.",
        version: "0.1.0",
        subcommands: [ThumbnailCommand.self]
    )
}
