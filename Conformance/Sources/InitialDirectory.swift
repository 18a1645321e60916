import Foundation

/// The cache directory's contents before the first step.
struct InitialDirectory: Sendable {
    /// Exact journal bytes (JSON escapes allow CR and a missing final LF), or nil for no journal.
    var journal: Data?
    /// Other files by relative path (`k1.0`, `journal.bkp`, `sub/inner.txt`).
    var files: [String: Data] = [:]
    /// When true the cache directory itself does not exist.
    var noDirectory = false

    init() {}

    init(fields f: StepFields, params: OpenParams) throws(StepFields.Failure) {
        if let exact = try f.optionalString("journal") {
            journal = Data(exact.utf8)
        }
        if let body = try f.optionalString("journalBody") {
            guard journal == nil else { throw .init("give either \"journal\" or \"journalBody\"") }
            journal = Data((params.headerLines.joined(separator: "\n") + "\n" + body).utf8)
        }
        if case .object(let files) = f.raw("files") {
            for (name, v) in files {
                guard let text = v.stringValue else { throw .init("file \"\(name)\" must be a string") }
                self.files[name] = try ValueText.decode(text, field: name)
            }
        }
        noDirectory = f.raw("noDirectory") == .bool(true)
        try f.rejectUnused()
    }

    /// Recreates `directory` from scratch with these contents.
    func materialize(at directory: URL) throws(ConformanceError) {
        let fm = FileManager.default
        do {
            try? fm.removeItem(at: directory)
            if noDirectory { return }
            try fm.createDirectory(at: directory, withIntermediateDirectories: true)
            if let journal { try journal.write(to: directory.appendingPathComponent("journal")) }
            for (name, data) in files {
                let url = directory.appendingPathComponent(name)
                try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try data.write(to: url)
            }
        } catch {
            throw .io(path: directory.path, reason: "cannot prepare the initial directory: \(error)")
        }
    }
}
