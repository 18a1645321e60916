import ArgumentParser
import ThumbcacheKit

/// Root command; each subcommand lives in its own file.
@main
struct Thumbcache: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbcache",
        abstract: "Image thumbnail caching service.",
        version: ThumbnailPipeline.version,
        subcommands: [GetCommand.self, WarmCommand.self, InfoCommand.self, StatsCommand.self, ClearCommand.self, ThumbnailCommand.self]
    )
}
