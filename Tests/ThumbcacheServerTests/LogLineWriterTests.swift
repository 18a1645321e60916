import Foundation
import Testing
@testable import ThumbcacheServer

/// Access-log lines are batched: written together, in order, and never lost by `flush()` or an urgent line.
@Suite struct LogLineWriterTests {
    /// A writer into a temporary file, and what the file holds.
    final class Sink {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("log-\(UUID().uuidString)").path
        let fd: Int32
        init() { fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0o600) }
        deinit {
            close(fd)
            unlink(path)
        }
        var lines: [String] { ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
    }

    @Test func linesWaitForTheBatchAndFlushWritesThemInOrder() {
        let sink = Sink()
        let writer = LogLineWriter(fileDescriptor: sink.fd, maxDelay: 3600)
        writer.write("one")
        writer.write("two")
        #expect(sink.lines.isEmpty, "not written line by line")
        writer.flush()
        #expect(sink.lines == ["one", "two"])
    }

    @Test func anUrgentLineIsWrittenAtOnceWithTheLinesBeforeIt() {
        let sink = Sink()
        let writer = LogLineWriter(fileDescriptor: sink.fd, maxDelay: 3600)
        writer.write("GET /-/64/contain/x 200")
        writer.write("warning disk full", urgent: true)
        #expect(sink.lines == ["GET /-/64/contain/x 200", "warning disk full"])
    }

    @Test func aFullBatchIsWrittenWithoutWaiting() {
        let sink = Sink()
        let writer = LogLineWriter(fileDescriptor: sink.fd, maxDelay: 3600, maxBytes: 100)
        for index in 0..<30 { writer.write("line \(index)") }  // 7 or 8 bytes each
        let written = sink.lines
        #expect(written.count >= 12 && written.count < 30, "\(written.count) lines written before any flush")
        #expect(written == (0..<written.count).map { "line \($0)" })
        // Nothing left for the writer's deinit, which may run later on its flusher thread: after this sink closed
        // its descriptor, the number can belong to another test's sink (a run beside stress-ng found 3 foreign
        // lines in the 4,000-line test).
        withExtendedLifetime(sink) { writer.flush() }
    }

    @Test func theFlusherWritesWithinItsDelay() async throws {
        let sink = Sink()
        let writer = LogLineWriter(fileDescriptor: sink.fd, maxDelay: 0.01)
        writer.write("soon")
        // Up to 600 s only as a hang guard: the line comes with no further write, and how soon depends on the machine.
        let deadline = ContinuousClock.now + .seconds(600)
        while sink.lines.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(sink.lines == ["soon"])
    }

    @Test func linesFromManyThreadsAreNeverTornOrLost() async {
        let sink = Sink()
        let writer = LogLineWriter(fileDescriptor: sink.fd, maxDelay: 0.001, maxBytes: 512)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask { for index in 0..<500 { writer.write("task \(task) line \(index)") } }
            }
        }
        writer.flush()
        let lines = sink.lines
        #expect(lines.count == 4000)
        for task in 0..<8 {
            let own = lines.filter { $0.hasPrefix("task \(task) ") }
            #expect(own == (0..<500).map { "task \(task) line \($0)" }, "each task's lines in its order")
        }
    }
}
