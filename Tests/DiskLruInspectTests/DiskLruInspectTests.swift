import DiskLru
import Foundation
import Testing

/// The `disklru` executable run as a user runs it, on caches written by DiskLru, OkHttp 3.13.1 and JakeWharton's
/// DiskLruCache (fixtures), on damaged ones, and on read-only and locked directories.
@Suite struct DiskLruInspectTests {
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    static var executable: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if directory.lastPathComponent.hasSuffix(".xctest") { directory.deleteLastPathComponent() }
        return directory.appendingPathComponent("disklru")
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func run(_ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // A tool that waited for journal.lock would hang: stop it, and the status shows the signal.
        let watchdog = DispatchWorkItem { process.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
        defer { watchdog.cancel() }
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }

    /// A fresh temporary directory; `copying` a fixture fills it with that fixture's files.
    static func temporaryDirectory(copying fixture: String? = nil) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("disklru-inspect-\(UUID().uuidString)").path
        if let fixture {
            try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent(fixture).path, toPath: path)
        } else {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        return path
    }

    /// DiskLru cache with appVersion 7 and valueCount 3: a (1+2+3 bytes), b, c, then a read of a, closed.
    static func diskLruCache() throws -> String {
        let path = try temporaryDirectory()
        let cache = try DiskLruCache(directory: URL(fileURLWithPath: path), appVersion: 7, valueCount: 3, maxSize: 1 << 20)
        try cache.setData([Data("a".utf8), Data("aa".utf8), Data("aaa".utf8)], forKey: "a")
        try cache.setData([Data("bbbb".utf8), Data(), Data("b".utf8)], forKey: "b")
        try cache.setData([Data("c".utf8), Data("c".utf8), Data("c".utf8)], forKey: "c")
        try cache.snapshot(forKey: "a")?.close()
        try cache.close()
        return path
    }

    @Test func listsADiskLruCacheInLruOrderWithSizes() throws {
        let path = try Self.diskLruCache()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let list = try Self.run(["list", path])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.lines == [
            "key  value 0  value 1  value 2  total",
            "b          4        0        1      5",
            "c          1        1        1      3",
            "a          1        2        3      6",
            "3 entries, 14 bytes",
        ])
        let stats = try Self.run(["stats", path])
        #expect(stats.status == 0)
        #expect(stats.lines.contains("header     libcore.io.DiskLruCache, version 1, appVersion 7, valueCount 3"))
        #expect(stats.lines.contains("records    7: CLEAN 3, DIRTY 3, REMOVE 0, READ 1"))
        #expect(stats.lines.contains("redundant  4 records (compaction not due: at 2000 and at least the entry count)"))
        #expect(stats.lines.contains("size       14 bytes recorded for published entries"))
        let verify = try Self.run(["verify", path])
        #expect(verify.status == 0 && verify.lines == ["ok: 3 entries; journal and files agree"], "\(verify.stdout)")
    }

    @Test func readsACacheWrittenByOkHttp() throws {
        let path = Self.fixtures.appendingPathComponent("okhttp-3.13.1").path
        let list = try Self.run(["list", path])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.lines == [
            "key                               value 0  value 1  total",
            "13dab0f2774fd3737020b6f196fcdf04       27       30     57",
            "b1f35ea14172e4ad8f3d28c250503bdb       27        8     35",
            "2 entries, 92 bytes",
        ])
        let stats = try Self.run(["stats", path])
        #expect(stats.lines.contains("header     libcore.io.DiskLruCache, version 1, appVersion 201105, valueCount 2"))
        #expect(stats.lines.contains("records    10: CLEAN 4, DIRTY 4, REMOVE 1, READ 1"))
        #expect(stats.lines.contains("redundant  8 records (compaction not due: at 2000 and at least the entry count)"))
        let verify = try Self.run(["verify", path])
        #expect(verify.status == 0, "\(verify.stdout)")
    }

    @Test func readsACacheWrittenByJakeWhartonsDiskLruCache() throws {
        let path = Self.fixtures.appendingPathComponent("jakewharton-master").path
        let list = try Self.run(["list", path])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.lines == [
            "key        value 0  total",
            "avatar-2        13     13",
            "thumb_x-9        1      1",
            "avatar-1        11     11",
            "3 entries, 25 bytes",
        ])
        #expect(try Self.run(["verify", path]).status == 0)
    }

    /// Each damage alone makes `verify` exit 1 with exactly one problem line of its kind.
    @Test(arguments: [
        ("missing", "b.2"),
        ("orphan", "zz.0"),
        ("orphan", "a.1.tmp"),
        ("length", "c.0"),
        ("torn", "journal"),
        ("dirty", "entry c"),
        ("notfile", "a.0"),
    ])
    func verifyReportsEachDamage(kind: String, subject: String) throws {
        let path = try Self.diskLruCache()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = { (name: String) in URL(fileURLWithPath: path).appendingPathComponent(name) }
        let journal = try FileHandle(forWritingTo: file("journal"))
        try journal.seekToEnd()
        switch (kind, subject) {
        case ("missing", _): try FileManager.default.removeItem(at: file(subject))
        case ("orphan", _): try Data("x".utf8).write(to: file(subject))
        case ("length", _): try Data("longer".utf8).write(to: file(subject))
        case ("torn", _): try journal.write(contentsOf: Data("READ a".utf8))
        case ("dirty", _): try journal.write(contentsOf: Data("DIRTY c\n".utf8))
        default:
            try FileManager.default.removeItem(at: file(subject))
            try FileManager.default.createDirectory(at: file(subject), withIntermediateDirectories: false)
        }
        try journal.close()
        let verify = try Self.run(["verify", path])
        #expect(verify.status == 1)
        let problems = verify.lines.filter { $0.hasPrefix("problem: ") }
        #expect(problems.count == 1 && problems.first?.hasPrefix("problem: \(kind): ") == true, "\(verify.stdout)")
        #expect(problems.first?.contains(subject) == true || kind == "torn", "\(verify.stdout)")
        #expect(verify.lines.last?.hasPrefix("1 problem (") == true)
    }

    @Test func exitCodes() throws {
        let empty = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let noJournal = try Self.run(["verify", empty])
        #expect(noJournal.status == 2 && noJournal.stderr.contains("no journal or journal.bkp"), "\(noJournal.stderr)")
        #expect(try Self.run(["list", empty + "/absent"]).status == 2)
        try Data("x".utf8).write(to: URL(fileURLWithPath: empty + "/file"))
        #expect(try Self.run(["stats", empty + "/file"]).stderr.contains("not a directory"))
        // JakeWharton 2.0.2 appends to a torn line: `READ kREAD k1` is corrupt, and every opener wipes the directory.
        try Data("libcore.io.DiskLruCache\n1\n100\n2\n\nCLEAN k1 1 1\nREAD kREAD k1\n".utf8)
            .write(to: URL(fileURLWithPath: empty + "/journal"))
        for command in ["list", "verify", "stats"] {
            let corrupt = try Self.run([command, empty])
            #expect(corrupt.status == 2 && corrupt.stderr.contains("corrupt journal"), "\(corrupt.stderr)")
            #expect(corrupt.stderr.contains("READ kREAD k1"))
        }
        #expect(try Self.run([]).status == 64)
        #expect(try Self.run(["list"]).status == 64)
        #expect(try Self.run(["repair", empty]).status == 64)
        #expect(try Self.run(["--help"]).stdout.contains("Exit status: 0 success; 1 verify found problems"))
    }

    /// A journal from an untrusted directory: a header valueCount that would cost memory per entry is refused, and a
    /// key naming another path is reported instead of looked up.
    @Test func craftedJournalsAreRefusedOrReported() throws {
        let path = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let journal = URL(fileURLWithPath: path + "/journal")
        try Data("libcore.io.DiskLruCache\n1\n1\n2147483647\n\nREAD k\n".utf8).write(to: journal)
        let huge = try Self.run(["stats", path])
        #expect(huge.status == 2 && huge.stderr.contains("valueCount \"2147483647\" is not in 1...64"), "\(huge.stderr)")
        try Data("libcore.io.DiskLruCache\n1\n1\n1\n\nCLEAN ../etc 1\nBOGUS\n".utf8).write(to: journal)
        #expect(try Self.run(["list", path]).status == 2)
        try Data("libcore.io.DiskLruCache\n1\n1\n1\n\nCLEAN ../etc 1\nREAD zz\n".utf8).write(to: journal)
        let verify = try Self.run(["verify", path])
        #expect(verify.status == 1)
        #expect(verify.lines.contains("problem: badkey: entry \"../etc\" is not a plain file name; its files were not looked at"))
        #expect(verify.lines.contains { $0.hasPrefix("note: phantom: entry zz:") })
    }

    /// Name, kind, size, modification time and content of everything in `path`, and the directory's own mtime.
    static func state(of path: String) throws -> [String] {
        var result = [try modification(path)]
        for name in try FileManager.default.contentsOfDirectory(atPath: path).sorted() {
            let item = path + "/" + name
            let content = FileManager.default.contents(atPath: item).map { $0.base64EncodedString() } ?? "<dir>"
            result.append("\(name) \(try modification(item)) \(content)")
        }
        return result
    }

    static func modification(_ path: String) throws -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return "\(info.st_mode) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }

    @Test func changesNothingAndWorksReadOnlyAndBesideALockHolder() throws {
        // OkHttp's directory has no journal.lock, so creating one would show in the listing.
        let okhttp = try Self.temporaryDirectory(copying: "okhttp-3.13.1")
        let damaged = try Self.diskLruCache()
        defer {
            for path in [okhttp, damaged] {
                _ = chmod(path, 0o755)
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        try Data("x".utf8).write(to: URL(fileURLWithPath: damaged + "/orphan.0"))
        let torn = try FileHandle(forWritingTo: URL(fileURLWithPath: damaged + "/journal"))
        try torn.seekToEnd()
        try torn.write(contentsOf: Data("DIRTY a\nREAD b".utf8))
        try torn.close()
        for path in [okhttp, damaged] {
            let before = try Self.state(of: path)
            for command in ["list", "verify", "stats"] { _ = try Self.run([command, path]) }
            #expect(try Self.state(of: path) == before, "\(path) changed")
        }

        // Read-only copy: directory and files without write permission.
        for name in try FileManager.default.contentsOfDirectory(atPath: okhttp) { _ = chmod(okhttp + "/" + name, 0o444) }
        #expect(chmod(okhttp, 0o555) == 0)
        let before = try Self.state(of: okhttp)
        for command in ["list", "verify", "stats"] {
            let run = try Self.run([command, okhttp])
            #expect(run.status == 0, "\(command): \(run.stderr)")
        }
        #expect(try Self.state(of: okhttp) == before)

        // While this process holds an exclusive flock on journal.lock (as a live DiskLru cache does), the tool reads.
        let live = try Self.diskLruCache()
        defer { try? FileManager.default.removeItem(atPath: live) }
        let lock = open(live + "/" + DiskLruCache.lockFileName, O_RDWR | O_CREAT, 0o644)
        #expect(lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0)
        defer { close(lock) }
        let lockedBefore = try Self.state(of: live)
        let list = try Self.run(["list", live])
        #expect(list.status == 0 && list.lines.last == "3 entries, 14 bytes", "\(list.stdout) \(list.stderr)")
        #expect(try Self.run(["verify", live]).status == 0)
        #expect(try Self.run(["stats", live]).status == 0)
        #expect(try Self.state(of: live) == lockedBefore)
    }
}
