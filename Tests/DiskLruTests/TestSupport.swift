import Foundation
import Testing
@testable import DiskLru

/// A fresh directory under the system temp folder, removed when the value is released.
final class TempDirectory {
    let url: URL
    var path: String { url.path }

    init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("disklru-tests-\(UUID().uuidString)", isDirectory: true)
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    func write(_ name: String, _ text: String) { write(name, Data(text.utf8)) }

    func write(_ name: String, _ data: Data) {
        try! data.write(to: url.appendingPathComponent(name))
    }

    func read(_ name: String) -> String? {
        (try? Data(contentsOf: url.appendingPathComponent(name))).map { String(decoding: $0, as: UTF8.self) }
    }

    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name)) }

    func delete(_ name: String) { try? FileManager.default.removeItem(atPath: file(name)) }

    /// Every name in the directory except our lock file.
    var names: Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).subtracting([DiskLruCache.lockFileName])
    }
}

let header = "libcore.io.DiskLruCache\n1\n100\n2\n\n"

extension TempDirectory {
    /// Opens the cache the way both reference test suites do: appVersion 100, valueCount 2.
    /// Cleanup is manual so a test decides when trims and compaction run.
    func open(maxSize: Int64 = .max, options: DiskLruOptions = DiskLruOptions(cleanup: .manual)) throws -> DiskLruCache {
        try DiskLruCache(directory: url, appVersion: 100, valueCount: 2, maxSize: maxSize, options: options)
    }

    /// The journal's body lines (after the 5-line header), asserting the header.
    func journalBody(sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        guard let text = read(DiskLruCache.journalFileName) else {
            Issue.record("no journal", sourceLocation: sourceLocation)
            return []
        }
        #expect(text.hasPrefix(header), "journal header", sourceLocation: sourceLocation)
        var lines = text.dropFirst(header.count).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}

extension DiskLruCache {
    func set(_ key: String, _ a: String, _ b: String) throws {
        try setData([Data(a.utf8), Data(b.utf8)], forKey: key)
    }

    /// Both values as strings, or nil when absent.
    func strings(_ key: String) throws -> [String]? {
        guard let snapshot = try snapshot(forKey: key) else { return nil }
        defer { snapshot.close() }
        return try (0..<valueCount).map { String(decoding: try snapshot.data(at: $0), as: UTF8.self) }
    }
}

extension Data {
    init(_ string: String) { self.init(string.utf8) }
}
