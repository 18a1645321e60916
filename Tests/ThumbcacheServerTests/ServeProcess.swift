import BombTestSupport
import Foundation
import ThumbcacheKit

/// `thumbcache serve` as a child process on a free port, with loopback sources allowed (the tests' origins).
final class ServeProcess: @unchecked Sendable {
    static var executable: URL { ThumbcacheChild.executable }

    let process = Process()
    let cacheDirectory: URL
    private let errors = Pipe()
    private let collected = Locked(Data())

    init(cacheDirectory: URL? = nil, arguments: [String] = []) throws {
        self.cacheDirectory = cacheDirectory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-serve-child-\(UUID().uuidString)")
        // Under the tests' memory cap, as every child; `capped-run -` execs in place, so the pid is serve's. The request
        // deadline and the idle and header timeouts are hang guards here, never a verdict. With their defaults (10 s,
        // 30 s, 10 s), on a machine loaded by two test runs and a sanitizer build, a test about cache keys saw its
        // first request fail and the next one fetch again: what a 504 at the deadline does (the render nobody waits
        // for is dropped). No test of this child is about them.
        (process.executableURL, process.arguments) = try CappedProcess.inPlace(Self.executable, [
            "serve", "--port", "0", "--allow-loopback-sources", "--cache-dir", self.cacheDirectory.path,
            "--shutdown-timeout", "10", "--timeout", "600", "--idle-timeout", "600", "--header-timeout", "600"] + arguments)
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let collected = self.collected
        errors.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            collected.withLock { $0.append(data) }
        }
        try process.run()
    }

    var stderr: String { String(decoding: collected.withLock { $0 }, as: UTF8.self) }

    /// The port from the "serving on http://127.0.0.1:PORT" line (waits up to 10 min: a hang guard, never a verdict).
    func port() async throws -> Int {
        for _ in 0..<6000 {
            if let line = stderr.split(separator: "\n").first(where: { $0.contains("serving on http://") }),
               let port = line.split(separator: ":").last.flatMap({ Int($0) }) {
                return port
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "serve did not start: \(stderr)"])
    }

    /// The exit status (or the signal that ended it), waiting up to 10 min (a hang guard: a loaded machine once
    /// needs minutes for what takes a second alone).
    func exitStatus() async -> Int32 {
        for _ in 0..<6000 where process.isRunning { try? await Task.sleep(for: .milliseconds(100)) }
        if process.isRunning { process.interrupt() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    func removeCache() { try? FileManager.default.removeItem(at: cacheDirectory) }

    /// A short command (`sign`, `rm`, a refused `serve`), as the CLI tests run theirs.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ThumbcacheChild.Run {
        try ThumbcacheChild.run(arguments, environment: environment)
    }
}
