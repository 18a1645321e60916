import ArgumentParser
import Foundation
import ThumbcacheKit
#if canImport(Glibc)
import Glibc
#endif

/// Root command; each subcommand lives in its own file.
@main
struct Thumbcache: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbcache",
        abstract: "Image thumbnail caching service.",
        version: ThumbnailPipeline.version,
        subcommands: [
            GetCommand.self, WarmCommand.self, InfoCommand.self, StatsCommand.self, ClearCommand.self, RmCommand.self,
            ThumbnailCommand.self, ServeCommand.self, SignCommand.self,
        ]
    )

    /// swift-argument-parser's `main`, except that the standard streams are made safe first, every error
    /// is one line on stderr (a usage error too, pointing at --help instead of printing the usage), and
    /// help goes through the same checked output.
    static func main() async {
        MallocPolicy.apply()
        Console.prepareStandardStreams()
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            terminate(error)
        }
    }

    private static func terminate(_ error: any Error) -> Never {
        if error is ExitCode || error is PipelineError || error is FileOutput.Failure || error is Console.Failure {
            Glibc.exit(Console.fail(error).rawValue)
        }
        let code = exitCode(for: error)
        if code == .success {  // --help, --version
            do { try Console.print(fullMessage(for: error)) } catch { Glibc.exit(Console.fail(error).rawValue) }
            Glibc.exit(0)
        }
        let message = self.message(for: error).split(whereSeparator: \.isNewline).joined(separator: " ")
        if code.rawValue == Console.Status.usage {
            let subcommand = CommandLine.arguments.dropFirst().first.flatMap { name in
                configuration.subcommands.first { $0.configuration.commandName == name }
            }
            let help = ([configuration.commandName] + [subcommand?.configuration.commandName]).compactMap { $0 }
            Console.error("\(message) (see '\(help.joined(separator: " ")) --help')")
        } else if !message.isEmpty {
            Console.error(message)
        }
        Glibc.exit(code.rawValue)
    }
}
