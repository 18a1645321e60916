import Foundation

/// The steps that inspect or change the cache directory directly, behind the implementation's back.
struct DirectoryProbe {
    let directory: URL

    init(_ directory: URL) { self.directory = directory }

    private func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// The journal as lines, or `{"lineCount": n}` when that is what the step expects (long journals).
    func journal(expectation: Step.Expectation) -> JSONValue {
        let lines = journalLines()
        if case .equals(.object(let o)) = expectation, o["lineCount"] != nil, let a = lines.arrayValue {
            return .object(["lineCount": .int(Int64(a.count))])
        }
        return lines
    }

    /// A missing final LF shows as a last line `<no final LF>` so it cannot pass unnoticed.
    private func journalLines() -> JSONValue {
        guard let data = FileManager.default.contents(atPath: url("journal").path) else { return .null }
        if data.isEmpty { return .array([]) }
        // Split bytes, not Characters: Swift treats CR LF as one Character, and CRs must stay visible.
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        if lines.last == "" { lines.removeLast() } else { lines.append("<no final LF>") }
        return .array(lines.map(JSONValue.string))
    }

    /// `{"present": [...], "absent": [...]}` for the names the expectation (or the step) lists.
    func presence(expectation: Step.Expectation, names: [String]) -> JSONValue {
        var listed = names
        if case .equals(.object(let o)) = expectation {
            listed = ((o["present"]?.arrayValue ?? []) + (o["absent"]?.arrayValue ?? [])).compactMap(\.stringValue)
        }
        let exists = listed.filter { FileManager.default.fileExists(atPath: url($0).path) }
        return .object([
            "present": .array(exists.sorted().map(JSONValue.string)),
            "absent": .array(listed.filter { !exists.contains($0) }.sorted().map(JSONValue.string)),
        ])
    }

    func content(_ name: String) -> JSONValue {
        FileManager.default.contents(atPath: url(name).path).map { .string(ValueText.encode($0)) } ?? .null
    }

    /// Creates intermediate directories, e.g. `journal.bkp/blocker` makes a non-empty `journal.bkp` directory.
    func write(_ name: String, _ content: Data) -> JSONValue {
        do {
            try FileManager.default.createDirectory(at: url(name).deletingLastPathComponent(), withIntermediateDirectories: true)
            try content.write(to: url(name))
            return .string("ok")
        } catch {
            return .error("io")
        }
    }

    func delete(_ name: String) -> JSONValue {
        (try? FileManager.default.removeItem(at: url(name))) == nil ? .error("io") : .string("ok")
    }

    /// Deletes everything inside the directory and the directory itself (the "aggressive clearing" tests).
    func wipe() -> JSONValue {
        (try? FileManager.default.removeItem(at: directory)) == nil ? .error("io") : .string("ok")
    }
}
