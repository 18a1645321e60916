import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `swift run conformance`: replays Conformance/vectors against DiskLru (in-process), OkHttp 3.13 (Java driver)
/// and any `--driver CMD`; `--cross` runs seeded random handovers between Swift and Java on one directory.
@main
struct ConformanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conformance",
        abstract: "DiskLruCache conformance: vectors and cross-implementation runs (see Conformance/README.md).")

    @Option(help: "Directory of vector JSON files (default: Conformance/vectors).")
    var vectors: String?

    @Option(help: "Only run vectors whose name contains this text.")
    var filter: String?

    @Option(name: .customLong("driver"), help: "Extra implementation: a shell command speaking the driver protocol (repeatable).")
    var drivers: [String] = []

    @Flag(help: "Do not run the OkHttp Java driver.")
    var noJava = false

    @Flag(help: "Do not run the in-process Swift DiskLru.")
    var noSwift = false

    @Flag(help: "Run seeded random cross-implementation handovers instead of the vectors.")
    var cross = false

    @Option(help: "Cross-run seed (repeatable).")
    var seed: [UInt64] = [1]

    @Option(help: "Cross-run operations per seed.")
    var ops = 1000

    @Flag(help: "Print the recorded deviations as a Markdown table and exit.")
    var listDeviations = false

    @Flag(help: "Keep the work directory (cache directories and driver logs).")
    var keep = false

    @Flag(help: "Also print which deviations each implementation used.")
    var verbose = false

    @Flag(help: "Print every step's outcome as it runs (with --filter, to write or debug a vector).")
    var trace = false

    func run() throws {
        signal(SIGPIPE, SIG_IGN)  // a dead driver must surface as an error, not kill the runner
        let root = ConformanceCommand.packageRoot
        if listDeviations {
            Swift.print(DeviationCatalog(try loadVectors(root)).markdown, terminator: "")
            return
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer {
            if keep { Swift.print("work directory kept: \(work.path)") } else { try? FileManager.default.removeItem(at: work) }
        }
        let implementations = try makeDrivers(root: root, work: work)
        if cross {
            try runCross(implementations, work: work)
        } else {
            try runVectors(try loadVectors(root), on: implementations, work: work)
        }
    }

    private func loadVectors(_ root: URL) throws -> [Vector] {
        let dir = vectors.map { URL(fileURLWithPath: $0) } ?? root.appendingPathComponent("Conformance/vectors")
        return try Vector.loadAll(from: dir).filter { filter == nil || $0.name.contains(filter!) }
    }

    /// Swift first, then OkHttp, then `--driver`s. Missing Java fails in CI (CI=true); elsewhere it is skipped loudly.
    private func makeDrivers(root: URL, work: URL) throws -> [Driver] {
        var result: [Driver] = []
        if !noSwift { result.append(SwiftDriver()) }
        if !noJava {
            do throws(ConformanceError) {
                let java = try JavaToolchain(packageRoot: root)
                try java.compile()
                result.append(try java.makeDriver(logFile: work.appendingPathComponent("okhttp-driver.log")))
            } catch {
                guard case .javaUnavailable = error, ProcessInfo.processInfo.environment["CI"] != "true" else { throw error }
                let warning = "warning: \(error)\nwarning: skipping the OkHttp column (with CI=true this is an error).\n"
                FileHandle.standardError.write(Data(warning.utf8))
            }
        }
        for (i, command) in drivers.enumerated() {
            result.append(try ProcessDriver(shellCommand: command, logFile: work.appendingPathComponent("driver-\(i).log")))
        }
        guard !result.isEmpty else { throw ValidationError("no implementation left to run") }
        return result
    }

    private func runVectors(_ vectors: [Vector], on implementations: [Driver], work: URL) throws {
        var table = ReportTable()
        for vector in vectors {
            for driver in implementations {
                let status = VectorRunner(driver: driver, workRoot: work, trace: trace).run(vector)
                table.add(vector: vector.name, implementation: driver.name, status: status)
            }
        }
        table.print(verbose: verbose)
        Swift.print("\(vectors.count) vectors")
        if table.failureCount > 0 { throw ExitCode(1) }
    }

    private func runCross(_ implementations: [Driver], work: URL) throws {
        guard implementations.count >= 2 else {
            throw ValidationError("--cross needs two implementations (Swift and Java, or a --driver)")
        }
        var failed = false
        for s in seed {
            let run = CrossRun(drivers: implementations, seed: s, directory: work.appendingPathComponent("cross-\(s)/cache"))
            let names = implementations.map(\.name).joined(separator: " <-> ")
            do {
                try run.run(operations: ops)
                Swift.print("cross \(names) seed \(s): pass (\(run.operations) operations, "
                    + "\(run.handovers) handovers, \(run.compactions) compactions, \(run.evictions) evictions seen)")
            } catch {
                failed = true
                Swift.print("cross \(names) seed \(s): FAIL \(error)")
                Swift.print("reproduce: swift run conformance --cross --seed \(s) --ops \(ops)")
            }
        }
        if failed { throw ExitCode(1) }
    }

    /// The package root, found from this file so `swift run` works from any directory.
    static var packageRoot: URL {
        let fromSource = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        if FileManager.default.fileExists(atPath: fromSource.appendingPathComponent("Conformance/vectors").path) {
            return fromSource
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }
}
