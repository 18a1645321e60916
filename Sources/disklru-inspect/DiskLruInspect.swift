import ArgumentParser
import Foundation

/// `disklru`: inspects any DiskLruCache directory (DiskLru's, OkHttp's, JakeWharton's, one pulled from an Android
/// app) without changing it: no lock, no writes, no journal rebuild, so it is safe beside a live cache.
@main
struct DiskLruInspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disklru",
        abstract: "Inspect a DiskLruCache directory without modifying it (no lock is taken, nothing is written).",
        discussion: """
            appVersion and valueCount are read from the journal's header. When only journal.bkp exists it is read \
            instead, as every implementation restores it at open.

            Exit status: 0 success; 1 verify found problems; 2 the directory cannot be inspected (missing, \
            unreadable, no journal, or a corrupt journal, which every implementation wipes at open); 64 usage error.
            """,
        subcommands: [ListCommand.self, VerifyCommand.self, JournalStatsCommand.self])

    func run() throws {
        throw ValidationError("name a subcommand: list, verify or stats")
    }

    /// Reads the directory, or prints the one-line reason and exits 2.
    static func load(_ path: String) throws -> ReadOnlyCacheDirectory {
        do {
            return try ReadOnlyCacheDirectory(path: path)
        } catch {
            FileHandle.standardError.write(Data("disklru: \(error)\n".utf8))
            throw ExitCode(InspectError.exitStatus)
        }
    }
}

/// The directory argument every subcommand takes.
struct DirectoryArgument: ParsableArguments {
    @Argument(help: "The cache directory (the one holding `journal`).")
    var directory: String
}
