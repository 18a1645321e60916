import Foundation

/// The JSON report of a warm run (`warm --json FILE`), written while the run goes: each failure is appended
/// as it happens, so the file lists every one while memory holds at most a buffer; `finish` adds the counts.
/// It goes through `AtomicFile`, so the named file is replaced only by a complete report.
///
/// `{"failed": [{"reason", "url"}, …], "total", "fetched", "fresh", "revalidated", "failedCount",
/// "bytesDownloaded", "bytesStored", "interrupted", "seconds"}`
package final class WarmReportFile: Sendable {
    private struct State {
        let file: AtomicFile.Writer
        var buffer = Data("{\n  \"failed\" : [".utf8)
        var failures = 0
        /// The first write error: later failures are dropped and `finish` reports it.
        var error: FileOutput.Failure?
        let encoder: JSONEncoder

        mutating func flush() {
            guard error == nil else { return }
            do throws(FileOutput.Failure) { try file.write(buffer) } catch { self.error = error }
            buffer.removeAll(keepingCapacity: true)
        }
    }

    private static let flushSize = 64 << 10
    private let state: Locked<State>

    /// Creates the temporary beside `path` now, so an unwritable report stops the run before it starts.
    package init(path: String) throws(FileOutput.Failure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        state = Locked(State(file: try AtomicFile.Writer(path), encoder: encoder))
    }

    package func record(_ failure: WarmReport.Failure) {
        state.withLock { state in
            guard state.error == nil, let line = try? state.encoder.encode(failure) else { return }
            state.buffer.append(contentsOf: (state.failures == 0 ? "\n    " : ",\n    ").utf8)
            state.buffer.append(line)
            state.failures += 1
            if state.buffer.count >= Self.flushSize { state.flush() }
        }
    }

    /// Writes the counts and puts the report in place.
    package func finish(_ report: WarmReport) throws(FileOutput.Failure) {
        let error: FileOutput.Failure? = state.withLock { state in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            // The counts as a pretty object, its opening brace replaced by the closing of the failure list.
            let counts = (try? encoder.encode(report)) ?? Data("{}".utf8)
            state.buffer.append(contentsOf: (state.failures == 0 ? "]," : "\n  ],").utf8)
            state.buffer.append(counts.dropFirst())
            state.buffer.append(contentsOf: "\n".utf8)
            state.flush()
            if let error = state.error { return error }
            do throws(FileOutput.Failure) { try state.file.commit() } catch { return error }
            return nil
        }
        if let error { throw error }
    }
}
