import Foundation
import Testing

/// Runs the `disklru-torture` executable that `swift build`/`swift test` puts beside the test bundle.
enum Child {
    static var executable: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // XCTest on Linux runs `<bin>/<Package>PackageTests.xctest`; Swift Testing may be launched the same way.
        if directory.lastPathComponent.hasSuffix(".xctest") { directory.deleteLastPathComponent() }
        return directory.appendingPathComponent("disklru-torture")
    }

    private static func launch(_ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        return (process, pipe)
    }

    /// Runs to completion and returns standard output.
    static func run(_ arguments: [String]) throws -> String {
        let (process, pipe) = try launch(arguments)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Starts the child, waits for its "ready" line, and returns it running.
    static func start(_ arguments: [String]) throws -> (Process, Pipe) {
        let (process, pipe) = try launch(arguments)
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("ready") {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen.append(chunk)
        }
        return (process, pipe)
    }
}
