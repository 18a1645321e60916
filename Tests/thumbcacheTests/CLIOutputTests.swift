import BombTestSupport
import Foundation
import OriginTestSupport
import Testing
@testable import ThumbcacheKit
#if canImport(Glibc)
import Glibc
#endif

/// The command line as a hostile or careless user drives it: values out of range, outputs that fail or are
/// not regular files, names from URLs, long failing warm lists. Every run is a child process capped at 1 GiB
/// of address space (a runaway allocation ends the child, not the tests; before, the children ran uncapped);
/// none may die of a signal, and every failure is one line with a documented exit code.
@Suite(.serialized) struct CLIOutputTests {
    struct Run {
        let status: Int32
        /// The signal that killed the child (a trap is SIGILL or SIGTRAP), if one did.
        let signal: Int32?
        let stdout: Data
        let stderr: String
        /// The child's peak resident memory (VmHWM) as last seen while it ran.
        let peakRSSKiB: Int

        var lines: [Substring] { stderr.split(separator: "\n") }
    }

    enum Output {
        case captured
        case closed
        /// A pipe whose reading end is closed before the child writes.
        case brokenPipe
    }

    let work: String
    let image = Fixtures.directory.appendingPathComponent("testorig.jpg").path

    init() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-output-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    }

    func cleanUp() { try? FileManager.default.removeItem(atPath: work) }

    /// posix_spawn, for what Process cannot do: a closed standard output, a broken pipe, and the child's
    /// peak resident memory. That is read from /proc while it runs: wait4's ru_maxrss would not do, as a
    /// spawned child inherits the spawning process's high-water mark at exec.
    func run(_ arguments: [String], stdout: Output = .captured, directory: String? = nil) throws -> Run {
        let outPath = "\(work)/stdout-\(UUID().uuidString)", errPath = "\(work)/stderr-\(UUID().uuidString)"
        let outFD = open(outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644), errFD = open(errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var pipeFDs: [Int32] = [-1, -1]
        defer {
            close(outFD)
            close(errFD)
            if pipeFDs[1] >= 0 { close(pipeFDs[1]) }
            unlink(outPath)
            unlink(errPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        switch stdout {
        case .captured: posix_spawn_file_actions_adddup2(&actions, outFD, STDOUT_FILENO)
        case .closed: posix_spawn_file_actions_addclose(&actions, STDOUT_FILENO)
        case .brokenPipe:
            #expect(pipe(&pipeFDs) == 0)
            close(pipeFDs[0])
            posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], STDOUT_FILENO)
        }
        posix_spawn_file_actions_adddup2(&actions, errFD, STDERR_FILENO)
        // Under the tests' memory cap, in place (the same process, so /proc shows the executable itself). In
        // another working directory through sh: Glibc's posix_spawn_file_actions_addchdir_np is not imported.
        let capped = try CappedProcess.inPlace(CLITests.executable, arguments)
        let executable = directory == nil ? capped.executable.path : "/bin/sh"
        let command = [capped.executable.path] + capped.arguments
        let words = directory.map { ["sh", "-c", "cd \"$0\" && exec \"$@\"", $0] + command } ?? command
        let argv = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0, peak = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno != EINTR) { break }
            let fields = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            if let line = fields.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
               let kib = Int(line.split(separator: " ").dropFirst().first ?? "") {
                peak = max(peak, kib)
            }
            usleep(2_000)
        }
        let signal = status & 0x7F
        return Run(status: (status >> 8) & 0xFF, signal: signal == 0 ? nil : signal,
                   stdout: (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data(),
                   stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "", peakRSSKiB: peak)
    }

    /// Exit `code`, one line on stderr containing `text`, no signal.
    func expectOneLine(_ run: Run, exit code: Int32, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.signal == nil, "killed by signal \(run.signal ?? 0): \(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.status == code, "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.lines.count == 1 && run.stderr.contains(text), "\(run.stderr)", sourceLocation: sourceLocation)
    }

    /// The children of these tests (and of every CLI test: `CLITests.launch`, this suite's `run`) run capped at
    /// 1 GiB of address space; before, they ran uncapped. Seen in a child's own /proc entry while it downloads.
    @Test func childrenRunUnderTheMemoryCap() throws {
        let server = try OriginServer()
        defer { server.shutdown() }
        server.route("/held.jpg") { _ in .stream(head: Fixtures.jpeg, declaredLength: nil, chunk: 1 << 10, delay: .milliseconds(50)) }
        let child = try CLITests.launch(["get", server.url("/held.jpg"), "--size", "64", "--cache-dir", "\(work)/cache", "-o", "/dev/null"])
        while server.requestCount("/held.jpg") == 0 && child.0.isRunning { usleep(10_000) }
        let limits = (try? String(contentsOfFile: "/proc/\(child.0.processIdentifier)/limits", encoding: .utf8)) ?? ""
        child.0.terminate()
        _ = CLITests.finish(child)
        let addressSpace = limits.split(separator: "\n").first { $0.hasPrefix("Max address space") }
            .map { $0.split(separator: " ").suffix(3).map(String.init) }
        // Under ThreadSanitizer the children run uncapped (it cannot start under an address-space limit).
        #expect(addressSpace == (CappedProcess.underThreadSanitizer ? ["unlimited", "unlimited", "bytes"] : ["1073741824", "1073741824", "bytes"]),
                "\(limits)")
        cleanUp()
    }

    @Test func outOfRangeValuesAreOneLineUsageErrors() throws {
        let cache = ["--cache-dir", "\(work)/cache"]
        let get = ["get", image, "--size", "64", "-o", "\(work)/out.jpg"] + cache
        let warm = ["warm", "/dev/null", "--quiet"] + cache
        let cases: [[String]] = [
            get + ["--max-disk-size", "infGB"], get + ["--max-disk-size", "1e30GB"], get + ["--max-disk-size", "0.0001KB"],
            get + ["--max-disk-size", "nan"], get + ["--max-disk-size", "9223372036854775808"], get + ["--max-disk-size", "0"],
            get + ["--max-download-size", "1e300KB"], get + ["--max-download-size", "infKB"], get + ["--max-download-size", "8388608TiB"],
            get + ["--size", "0"], get + ["--size", "8193"], get + ["--size", "99999999999999999999"], get + ["--size", "1e3"],
            get + ["--stale-if-error", "99999999999999999999"], get + ["--stale-if-error=-1"],
            warm + ["--progress-interval", "inf"], warm + ["--progress-interval", "nan"], warm + ["--progress-interval", "1e400"],
            warm + ["--progress-interval", "0"], warm + ["--progress-interval=-1"],
            warm + ["--concurrency", "0"], warm + ["--concurrency", "257"], warm + ["--concurrency", "99999999999999999999"],
            warm + ["--sizes", "0"], warm + ["--sizes", "64,"], warm + ["--sizes", "99999999999999999999"],
            warm + ["--max-disk-size", "infGB"], warm + ["--max-download-size", "1e300KB"],
            ["info", image, "--max-disk-size", "1e30GB"] + cache, ["stats", "--max-disk-size", "-1"] + cache,
            ["clear", "--max-disk-size", "0.5B"] + cache,
            ["thumbnail", image, "--size", "64", "--quality", "0", "-o", "\(work)/t.jpg"],
            ["thumbnail", image, "--size", "99999999999999999999", "-o", "\(work)/t.jpg"],
        ]
        for arguments in cases {
            let run = try run(arguments)
            expectOneLine(run, exit: 64, "--help')")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(work)/out.jpg"), "nothing ran")
        cleanUp()
    }

    @Test func helpSaysTheUnitsDefaultsAndRanges() throws {
        let get = try run(["get", "--help"])
        let help = String(decoding: get.stdout, as: UTF8.self).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(get.status == 0)
        #expect(help.contains("(default: 512MiB)") && help.contains("(default: 50MB)"), "\(help)")
        #expect(help.contains("KB, MB, GB, TB = powers of 1000; KiB, MiB, GiB, TiB = powers of 1024"))
        #expect(help.contains("1-8192") && help.contains("74 the thumbnail or the report could not be written"))
        #expect(!help.contains("ByteCount("))
        let warm = String(decoding: try run(["warm", "--help"]).stdout, as: UTF8.self)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(warm.contains("1-256") && warm.contains("each 1-8192") && warm.contains("74 the --json report could not be written"))
        // 1 byte is the least a size can be, and is accepted (the cache then keeps nothing).
        let tiny = try run(["get", image, "--size", "64", "--max-disk-size", "1", "--cache-dir", "\(work)/cache", "-o", "\(work)/a.jpg"])
        #expect(tiny.status == 0, "\(tiny.stderr)")
        cleanUp()
    }

    @Test func outputFailuresAreOneLineAndExit74() throws {
        let cache = ["--cache-dir", "\(work)/cache"]
        let full = AtomicFileTests.characterDevice("full", in: work)
        let get = ["get", image, "--size", "64"] + cache
        expectOneLine(try run(get + ["-o", full]), exit: 74, "cannot write \(full): No space left on device")
        #expect(AtomicFileTests.kind(full) == S_IFCHR)
        expectOneLine(try run(get + ["-o", "-"], stdout: .closed), exit: 74, "cannot write standard output")
        expectOneLine(try run(get + ["-o", "-"], stdout: .brokenPipe), exit: 74, "cannot write standard output: Broken pipe")
        expectOneLine(try run(get + ["-o", "\(work)/no/such/dir/t.jpg"]), exit: 74, "cannot write \(work)/no/such/dir/t.jpg")
        expectOneLine(try run(get + ["-o", "\(work)/t.jpg", "--json"], stdout: .brokenPipe), exit: 74, "Broken pipe")
        expectOneLine(try run(["info", image, "--json"] + cache, stdout: .closed), exit: 74, "cannot write standard output")
        expectOneLine(try run(["stats"] + cache, stdout: .brokenPipe), exit: 74, "cannot write standard output: Broken pipe")
        expectOneLine(try run(["--help"], stdout: .brokenPipe), exit: 74, "cannot write standard output: Broken pipe")
        expectOneLine(try run(["thumbnail", image, "--size", "32", "-o", full]), exit: 74, "cannot write \(full)")

        // warm: a report that cannot be created stops the run before it starts; one that fails on the way
        // is reported at the end.
        let list = "\(work)/urls.txt"
        try "ftp://127.0.0.1/a.jpg\n\(image)\n".write(toFile: list, atomically: true, encoding: .utf8)
        let early = try run(["warm", list, "--quiet", "--json", "\(work)/no/such/dir/r.json"] + cache)
        expectOneLine(early, exit: 74, "cannot write \(work)/no/such/dir/r.json")
        let late = try run(["warm", list, "--quiet", "--json", full] + cache)
        #expect(late.signal == nil && late.status == 74, "\(late.stderr)")
        #expect(late.stderr.contains("thumbcache: cannot write \(full): No space left on device"))
        #expect(late.stderr.contains("warmed 2 of 2 URLs"), "the run itself was done: \(late.stderr)")
        cleanUp()
    }

    @Test func jsonFailuresAreErrorObjectsWhereTheReportGoes() throws {
        let cache = ["--cache-dir", "\(work)/cache"]
        func object(_ data: Data) -> [String: Any] {
            (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        }
        let refused = try run(["get", "http://127.0.0.1:1/x.jpg", "--size", "64", "--json", "-o", "\(work)/x.jpg"] + cache)
        #expect(refused.status == 3)
        let error = object(refused.stdout)
        #expect(error["error"] as? String == "network" && error["exitCode"] as? Int == 3, "\(String(decoding: refused.stdout, as: UTF8.self))")
        #expect((error["message"] as? String)?.contains("127.0.0.1:1") == true)
        #expect(refused.lines.count == 1, "and the plain line on stderr: \(refused.stderr)")

        // With the image on stdout, the JSON (success or failure) is on stderr, alone.
        let toStdout = try run(["get", "\(work)/missing.jpg", "--size", "64", "--json", "-o", "-"] + cache)
        #expect(toStdout.status == 5 && toStdout.stdout.isEmpty)
        #expect(toStdout.lines.count == 1 && object(Data(toStdout.stderr.utf8))["error"] as? String == "input", "\(toStdout.stderr)")

        let output = try run(["get", image, "--size", "64", "--json", "-o", "\(work)/no/dir/x.jpg"] + cache)
        #expect(output.status == 74 && object(output.stdout)["error"] as? String == "output", "\(output.stderr)")

        let info = try run(["info", "http://127.0.0.1:1/never.jpg", "--json"] + cache)
        #expect(info.status == 7)
        let missing = object(info.stdout)
        #expect(missing["error"] as? String == "notCached" && missing["exitCode"] as? Int == 7, "\(info.stderr)")
        #expect((missing["message"] as? String)?.contains("is not cached") == true)
        let usage = try run(["info", "ftp://127.0.0.1/x.jpg", "--json"] + cache)
        #expect(usage.status == 64 && object(usage.stdout)["error"] as? String == "usage")
        cleanUp()
    }

    @Test func devicesAndFIFOsAreWrittenInPlace() throws {
        let cache = ["--cache-dir", "\(work)/cache"]
        let null = AtomicFileTests.characterDevice("null", in: work)
        let toNull = try run(["get", image, "--size", "64", "-o", null] + cache)
        #expect(toNull.status == 0 && AtomicFileTests.kind(null) == S_IFCHR, "\(toNull.stderr)")
        #expect(try run(["thumbnail", image, "--size", "32", "-o", null]).status == 0)
        #expect(AtomicFileTests.kind(null) == S_IFCHR)
        #expect(try FileManager.default.contentsOfDirectory(atPath: work).allSatisfy { !$0.contains(".tmp") })

        let regular = "\(work)/regular.jpg"
        #expect(try run(["get", image, "--size", "64", "-o", regular] + cache).status == 0)
        let expected = try Data(contentsOf: URL(fileURLWithPath: regular))
        // /dev/stdout on a file: written through the descriptor, never renamed over (as root, that would
        // replace the link in /dev).
        if AtomicFileTests.kind("/dev/stdout") == S_IFLNK {
            let viaLink = try run(["get", image, "--size", "64", "-o", "/dev/stdout"] + cache)
            #expect(viaLink.status == 0 && viaLink.stdout == expected, "\(viaLink.stderr)")
            #expect(AtomicFileTests.kind("/dev/stdout") == S_IFLNK)
        }

        func throughFIFO(_ arguments: (String) -> [String]) throws -> (Run, Data) {
            let fifo = "\(work)/fifo-\(UUID().uuidString)"
            #expect(mkfifo(fifo, 0o600) == 0)
            // Opened before the child, so its open for writing does not wait; read once it is done (the
            // thumbnail fits in the pipe's buffer).
            let reader = open(fifo, O_RDONLY | O_NONBLOCK)
            defer { close(reader) }
            let child = try run(arguments(fifo))
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = read(reader, &buffer, buffer.count)
            #expect(AtomicFileTests.kind(fifo) == S_IFIFO, "the FIFO is still a FIFO")
            return (child, Data(buffer.prefix(max(0, count))))
        }
        let (get, bytes) = try throughFIFO { ["get", image, "--size", "64", "-o", $0] + cache }
        #expect(get.status == 0 && bytes == expected, "\(get.stderr)")
        let (thumbnail, small) = try throughFIFO { ["thumbnail", image, "--size", "32", "-o", $0] }
        #expect(thumbnail.status == 0 && small.prefix(3) == Data([0xFF, 0xD8, 0xFF]), "\(thumbnail.stderr)")
        let list = "\(work)/urls.txt"
        try "ftp://127.0.0.1/a.jpg\n".write(toFile: list, atomically: true, encoding: .utf8)
        let (warm, report) = try throughFIFO { ["warm", list, "--quiet", "--json", $0] + cache }
        #expect(warm.status == 1)
        let json = (try? JSONSerialization.jsonObject(with: report)) as? [String: Any]
        #expect((json?["failed"] as? [[String: String]])?.first?["url"] == "ftp://127.0.0.1/a.jpg", "\(String(decoding: report, as: UTF8.self))")
        cleanUp()
    }

    @Test func theDefaultOutputNameComesFromTheURLPathOnly() throws {
        let server = try OriginServer()
        defer { server.shutdown() }
        let paths = ["/photo.jpg?size=large", "/%2E%2E%2Fescape.jpg?x=1", "/?download=1", "/.profile"]
        // The origin is asked for the normalised path (`%2E` is `.`; the escaped slash stays: one segment).
        for path in ["/photo.jpg?size=large", "/..%2Fescape.jpg?x=1", "/?download=1", "/.profile"] {
            server.route(path) { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=60")], body: Fixtures.jpeg) }
        }
        let out = "\(work)/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        for path in paths {
            let get = try run(["get", server.url(path), "--size", "64", "--cache-dir", "\(work)/cache"], directory: out)
            #expect(get.status == 0, "\(get.stderr)")
        }
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: out))
        #expect(names == ["photo-64.jpg", "_escape-64.jpg", "thumbnail-64.jpg", "profile-64.jpg"], "\(names)")
        #expect(FileManager.default.fileExists(atPath: "\(work)/escape-64.jpg") == false)
        cleanUp()
    }

    @Test func warmReadsAListWithAByteOrderMarkAndCRLFLines() throws {
        let server = try OriginServer()
        defer { server.shutdown() }
        for name in ["a", "b"] {
            server.route("/\(name).jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=60")], body: Fixtures.jpeg) }
        }
        let list = "\(work)/windows.txt"
        try Data(([0xEF, 0xBB, 0xBF] as [UInt8]) + Array("\(server.url("/a.jpg"))\r\n# comment\r\n\r\n\(server.url("/b.jpg"))\r\n".utf8))
            .write(to: URL(fileURLWithPath: list))
        let warm = try run(["warm", list, "--sizes", "64", "--quiet", "--cache-dir", "\(work)/cache"])
        #expect(warm.status == 0 && warm.stderr.contains("2 fetched"), "\(warm.stderr)")
        #expect(server.requestCount("/a.jpg") == 1 && server.requestCount("/b.jpg") == 1)
        cleanUp()
    }

    /// 50,000 failing URLs: the JSON report lists every one, the text report a sample, and memory does not
    /// grow with the failures (it grew by about 1.3 KB per failure, kept to the end).
    @Test func warmReportsEveryFailureWithMemoryThatDoesNotGrowWithThem() throws {
        func warm(_ count: Int) throws -> (Run, report: String) {
            let list = "\(work)/list-\(count).txt", report = "\(work)/report-\(count).json"
            try (0..<count).map { "ftp://127.0.0.1/images/photo-\($0).jpg" }.joined(separator: "\n")
                .write(toFile: list, atomically: true, encoding: .utf8)
            return (try run(["warm", list, "--quiet", "--cache-dir", "\(work)/cache", "--json", report]), report)
        }
        let (small, _) = try warm(10_000)
        let count = 50_000
        let (large, report) = try warm(count)
        #expect(small.status == 1 && large.status == 1 && large.signal == nil, "\(large.stderr.suffix(500))")

        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any]
        let failed = json?["failed"] as? [[String: String]] ?? []
        #expect(failed.count == count && json?["failedCount"] as? Int == count)
        #expect(Set(failed.compactMap { $0["url"] }).count == count, "every URL, once")

        let listed = large.lines.filter { $0.hasPrefix("thumbcache:   ftp://") }
        #expect(listed.count == WarmReport.failureSampleSize)
        #expect(large.stderr.contains("… and \(count - WarmReport.failureSampleSize) more (all of them in \(report))"))
        #expect(large.stderr.contains("\(count) failed"))

        // The list itself costs a few hundred bytes per URL (8 MB for these 40,000 more); kept failures
        // would add 50 MB.
        let growth = large.peakRSSKiB - small.peakRSSKiB
        #expect(small.peakRSSKiB > 0 && growth < 25 * 1024, "peak RSS \(small.peakRSSKiB) KiB for 10,000 URLs, \(large.peakRSSKiB) KiB for \(count)")
        print("warm peak RSS: \(small.peakRSSKiB) KiB for 10,000 failing URLs, \(large.peakRSSKiB) KiB for \(count)")
        cleanUp()
    }
}
