import Foundation
import Testing
@testable import ThumbcacheKit
#if canImport(Glibc)
import Glibc
#endif

/// Output files: nothing planted beside the target is followed, special files are written, not replaced.
@Suite(.serialized) struct AtomicFileTests {
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-atomic-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func cleanUp() { try? FileManager.default.removeItem(atPath: directory) }

    static func kind(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    /// A character device node: a private copy of /dev/null (1,3) or /dev/full (1,7) when this user may make one
    /// (root), so a failure can never replace the machine's own; else the real one, which a non-root test
    /// cannot replace.
    static func characterDevice(_ name: String, in directory: String) -> String {
        let minor: UInt32 = name == "full" ? 7 : 3
        let path = "\(directory)/\(name)"
        // Linux encodes a small (major, minor) as major << 8 | minor.
        return mknod(path, S_IFCHR | 0o666, dev_t(1 << 8 | minor)) == 0 ? path : "/dev/\(name)"
    }

    @Test func aSymlinkPlantedAtATemporaryNameIsNeitherFollowedNorLeftBehind() throws {
        let target = "\(directory)/out.jpg", victim = "\(directory)/victim"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        // The name the old implementation used, and a spread of others in case of a predictable successor.
        let planted = ["\(target).tmp-\(getpid())", "\(target).tmp", "\(target).tmp-0"]
        for name in planted { #expect(symlink(victim, name) == 0) }
        try AtomicFile.replace(target, with: Data("thumbnail".utf8))
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "thumbnail")
        #expect(Self.kind(target) == S_IFREG)
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: directory))
        #expect(names == Set(["out.jpg", "victim"] + planted.map { URL(fileURLWithPath: $0).lastPathComponent }),
                "no temporary left behind: \(names)")
        cleanUp()
    }

    @Test func aRegularFileIsReplacedWithTheModeOfANewFileAndASymlinkTargetIsNotFollowed() throws {
        let target = "\(directory)/out.jpg", victim = "\(directory)/victim"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        #expect(symlink(victim, target) == 0)
        try AtomicFile.replace(target, with: Data("one".utf8))
        #expect(Self.kind(target) == S_IFREG, "the link itself is replaced")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        try AtomicFile.replace(target, with: Data("two".utf8))
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "two")
        let mask = umask(0)
        umask(mask)
        var info = stat()
        stat(target, &info)
        #expect(info.st_mode & 0o777 == 0o666 & ~mask, "a normal new file's mode, honouring the umask")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory)) == ["out.jpg", "victim"])
        cleanUp()
    }

    @Test func aCharacterDeviceIsWrittenInPlace() throws {
        let null = Self.characterDevice("null", in: directory)
        try AtomicFile.replace(null, with: Data(repeating: 7, count: 5000))
        #expect(Self.kind(null) == S_IFCHR)
        let full = Self.characterDevice("full", in: directory)
        #expect(throws: FileOutput.Failure.self) { try AtomicFile.replace(full, with: Data("x".utf8)) }
        #expect(Self.kind(full) == S_IFCHR)
        do {
            try AtomicFile.replace(full, with: Data("x".utf8))
        } catch {
            #expect(error.description == "cannot write \(full): No space left on device")
        }
        cleanUp()
    }

    @Test func aFIFOIsWrittenInPlace() throws {
        let fifo = "\(directory)/pipe"
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let payload = Data((0..<3000).map { UInt8($0 % 251) })
        try AtomicFile.replace(fifo, with: payload)
        var received = [UInt8](repeating: 0, count: 8192)
        let count = read(reader, &received, received.count)
        #expect(count == payload.count && Data(received.prefix(max(0, count))) == payload)
        #expect(Self.kind(fifo) == S_IFIFO)
        cleanUp()
    }

    @Test func aDirectoryOrAMissingParentIsAnError() throws {
        #expect(throws: FileOutput.Failure.self) { try AtomicFile.replace(directory, with: Data()) }
        #expect(throws: FileOutput.Failure.self) { try AtomicFile.replace("\(directory)/missing/out.jpg", with: Data()) }
        cleanUp()
    }

    @Test func anAbandonedWriterLeavesTheTargetAsItWas() throws {
        let target = "\(directory)/report.json"
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        do {
            let writer = try AtomicFile.Writer(target)
            try writer.write(Data("half".utf8))
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["report.json"])
        cleanUp()
    }

    @Test func theWarmReportListsEveryFailureAndStreamsThem() throws {
        let path = "\(directory)/report.json"
        let file = try WarmReportFile(path: path)
        var report = WarmReport(total: 30_000)
        for i in 0..<30_000 {
            if let failure = report.record("http://127.0.0.1:1/\(i)\"\\", .failed("reason \(i)")) { file.record(failure) }
        }
        #expect(report.failedCount == 30_000 && report.failureSample.count == WarmReport.failureSampleSize)
        // Streamed: most of it is on disk before the end (in the temporary beside the report).
        let written = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("report.json.tmp-") }
            .map { (try? FileManager.default.attributesOfItem(atPath: "\(directory)/\($0)")[.size] as? Int) ?? 0 }
        #expect(written.count == 1 && (written.first ?? 0) > 1_000_000, "\(written)")
        try file.finish(report)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        let failed = json?["failed"] as? [[String: String]] ?? []
        #expect(failed.count == 30_000 && json?["failedCount"] as? Int == 30_000 && json?["total"] as? Int == 30_000)
        #expect(failed.last == ["url": "http://127.0.0.1:1/29999\"\\", "reason": "reason 29999"])
        let empty = try WarmReportFile(path: "\(directory)/empty.json")
        try empty.finish(WarmReport(total: 0))
        let none = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(directory)/empty.json"))) as? [String: Any]
        #expect((none?["failed"] as? [Any])?.isEmpty == true && none?["total"] as? Int == 0)
        cleanUp()
    }
}
