import Foundation

/// The `thumbcache` executable built beside the tests, run as a user runs it: a child process, under the tests'
/// memory cap (`CappedProcess.inPlace`), so a crash or a bomb costs the child only. Every test target that runs
/// the command line goes through here.
public enum ThumbcacheChild {
    public struct Run: Sendable {
        public let status: Int32
        public let stdout: Data
        public let stderr: String
    }

    public static var executable: URL { CappedProcess.buildDirectory.appendingPathComponent("thumbcache") }

    /// Starts `thumbcache arguments` with its standard output and error on pipes; `environment` is added to the
    /// tests' own; `fileSizeLimit` keeps every file it writes below that many bytes.
    public static func launch(_ arguments: [String], environment: [String: String] = [:],
                              fileSizeLimit: Int? = nil) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        (process.executableURL, process.arguments) = try CappedProcess.inPlace(executable, arguments, fileSize: fileSizeLimit)
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return (process, out, err)
    }

    /// Reads both pipes to their end and waits for the exit.
    public static func finish(_ launched: (Process, Pipe, Pipe)) -> Run {
        let (process, out, err) = launched
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }

    public static func run(_ arguments: [String], environment: [String: String] = [:], fileSizeLimit: Int? = nil) throws -> Run {
        finish(try launch(arguments, environment: environment, fileSizeLimit: fileSizeLimit))
    }

    /// A fresh directory under the system's temporary one, for a child's inputs and outputs.
    public static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
