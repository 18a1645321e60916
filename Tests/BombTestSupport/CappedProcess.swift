import Foundation

/// Runs an executable built next to the tests (`thumbcache`) in a child process under an address-space cap,
/// through the `capped-run` helper, and reports how it ended and its peak resident memory: bombs are fed to
/// children, so a blow-up costs the child, and the peak shows what the bomb cost.
public struct CappedProcess {
    public struct Outcome: CustomStringConvertible {
        /// The exit status, or nil when a signal ended the process.
        public var status: Int32?
        public var signal: Int32?
        /// Peak resident set size (getrusage's ru_maxrss), in bytes.
        public var peakBytes: Int
        public var stderr: String

        public var description: String {
            (status.map { "exit \($0)" } ?? "signal \(signal ?? 0)") + ", peak \(peakBytes >> 20) MiB, stderr: \(stderr)"
        }
    }

    /// The directory holding the test bundle and the executables built with it.
    /// On Linux the test bundle is an executable (`arguments[0]`) beside the products.
    public static let buildDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()

    public static func executable(_ name: String) -> URL? {
        let url = buildDirectory.appendingPathComponent(name)
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }

    /// ThreadSanitizer maps terabytes of shadow memory and cannot start under an address-space cap: under a
    /// `--sanitize=thread` build the children run uncapped (the peak is still reported).
    public static let underThreadSanitizer = dlsym(nil, "__tsan_init") != nil

    public static var available: Bool { executable("capped-run") != nil && executable("thumbcache") != nil }

    /// Runs `thumbcache arguments` capped at `addressSpace` bytes.
    public static func thumbcache(_ arguments: [String], addressSpace: Int = 1 << 30) throws -> Outcome {
        try run(executable("thumbcache")!, arguments, addressSpace: addressSpace)
    }

    /// The command line that runs `program arguments` under the cap in place (`capped-run -`: the same process,
    /// no report), for tests that start the child themselves (their own pipes, a closed standard output, /proc):
    /// every `thumbcache` child of the tests runs this way or through `run`. `fileSize` also limits how large
    /// a file may grow (writes past it fail with EFBIG, as on a full disk).
    public static func inPlace(_ program: URL, _ arguments: [String], addressSpace: Int = 1 << 30,
                               fileSize: Int? = nil) throws -> (executable: URL, arguments: [String]) {
        guard let runner = executable("capped-run") else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "capped-run is not built beside the tests"])
        }
        let limits = (fileSize.map { ["--file-size", String($0)] } ?? []) + ["-", String(underThreadSanitizer ? 0 : addressSpace)]
        return (runner, limits + [program.path] + arguments)
    }

    public static func run(_ program: URL, _ arguments: [String], addressSpace: Int) throws -> Outcome {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("capped-run-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: report) }
        let cap = underThreadSanitizer ? 0 : addressSpace
        let (status, stderr) = try runCollectingStandardError(
            executable("capped-run")!, [report.path, String(cap), program.path] + arguments)
        let fields = (try? String(contentsOf: report, encoding: .utf8))?.split(separator: " ") ?? []
        guard status == 0, fields.count == 4, let value = Int32(fields[1]),
              let kib = Int(fields[3].trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "capped-run failed: \(stderr)"])
        }
        let exited = fields[0] == "exit"
        return Outcome(status: exited ? value : nil, signal: exited ? nil : value, peakBytes: kib << 10, stderr: stderr)
    }

    /// Runs `program` to its end with standard output discarded; its exit status and standard error.
    public static func runCollectingStandardError(_ program: URL, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
