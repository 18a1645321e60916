import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A driver running as a subprocess (the Java driver, or any `--driver CMD`), asked for its name with `hello`.
final class ProcessDriver: Driver {
    private(set) var name: String
    private let executable: URL
    private let arguments: [String]
    private let logFile: URL
    private let timeout: Duration
    private var process: Process?
    private var toDriver: FileHandle?
    private var fromDriver: Int32 = -1
    private var buffer: [UInt8] = []

    /// Starts the driver; its stderr goes to `logFile` (OkHttp logs every corruption wipe with a stack trace).
    init(executable: URL, arguments: [String], logFile: URL, timeout: Duration = .seconds(60)) throws(ConformanceError) {
        self.executable = executable
        self.arguments = arguments
        self.logFile = logFile
        self.timeout = timeout
        name = ([executable.path] + arguments).joined(separator: " ")
        try start()
    }

    /// `--driver CMD`: run through the shell so CMD may carry arguments.
    convenience init(shellCommand: String, logFile: URL) throws(ConformanceError) {
        try self.init(executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", shellCommand], logFile: logFile)
    }

    deinit { stop() }

    private func start() throws(ConformanceError) {
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        p.standardError = FileHandle(forWritingAtPath: logFile.path) ?? FileHandle.standardError
        do {
            try p.run()
        } catch {
            throw .driverFailed(driver: name, reason: "cannot start \(executable.path): \(error)")
        }
        process = p
        toDriver = input.fileHandleForWriting
        fromDriver = output.fileHandleForReading.fileDescriptor
        buffer = []
        let hello = try send("hello")
        guard hello.hasPrefix("ok "), hello.count > 3 else {
            throw .driverFailed(driver: name, reason: "expected `ok <name>` in reply to hello, got: \(hello)")
        }
        name = String(hello.dropFirst(3))
    }

    private func stop() {
        try? toDriver?.close()
        if let p = process, p.isRunning { p.terminate() }
        process = nil
        toDriver = nil
    }

    func send(_ command: String) throws(ConformanceError) -> String {
        guard let toDriver, process?.isRunning == true else {
            throw .driverFailed(driver: name, reason: "the driver has exited; see \(logFile.path)")
        }
        do {
            try toDriver.write(contentsOf: Data((command + "\n").utf8))
        } catch {
            throw .driverFailed(driver: name, reason: "cannot write to the driver (\(error)); see \(logFile.path)")
        }
        return try readLine(for: command)
    }

    private func readLine(for command: String) throws(ConformanceError) -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            let remaining = deadline - ContinuousClock.now
            let ms = Int32(clamping: max(0, remaining.components.seconds * 1000))
            var pfd = pollfd(fd: fromDriver, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, ms) == 0 {
                stop()
                throw .driverFailed(driver: name, reason: "no reply within \(timeout) to `\(command.prefix(80))`; driver stopped")
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = read(fromDriver, &chunk, chunk.count)
            if n <= 0 {
                stop()
                throw .driverFailed(driver: name, reason: "the driver exited during `\(command.prefix(80))`; see \(logFile.path)")
            }
            buffer += chunk[..<n]
        }
    }

    func reset() {
        if process?.isRunning != true {
            // A hung or crashed driver was stopped: start a fresh one for the next vector.
            try? start()
            return
        }
        _ = try? send("reset")
    }
}
