import Foundation
import ThumbcacheKit

/// Lines for standard error, written in batches: a `write(2)` per access-log line was a visible share of a
/// memory hit's cost (docs/benchmarks.md, `thumbcache serve`). A line is written at most
/// `maxDelay` after it was logged, at once when the batch reaches `maxBytes` or the line is urgent (warnings
/// and errors), and by `flush()`, which `serve` calls before it exits. Like nginx's `access_log ... buffer=`,
/// a `kill -9` can lose the last `maxDelay` of lines; nothing else is lost.
package final class LogLineWriter: @unchecked Sendable {
    package static let standardError = LogLineWriter(fileDescriptor: 2)

    private let fileDescriptor: Int32
    private let maxDelay: TimeInterval
    private let maxBytes: Int
    /// Guards `pending` and `flusherStarted`; writes happen under it too, so batches keep their order.
    private let condition = NSCondition()
    private var pending: [UInt8] = []
    private var flusherStarted = false

    package init(fileDescriptor: Int32, maxDelay: TimeInterval = 0.05, maxBytes: Int = 64 << 10) {
        self.fileDescriptor = fileDescriptor
        self.maxDelay = maxDelay
        self.maxBytes = maxBytes
        pending.reserveCapacity(maxBytes)
    }

    /// Adds `line` and a newline; writes the batch now if `urgent` or full.
    package func write(_ line: String, urgent: Bool = false) {
        condition.lock()
        defer { condition.unlock() }
        pending.append(contentsOf: line.utf8)
        pending.append(UInt8(ascii: "\n"))
        if urgent || pending.count >= maxBytes {
            writePending()
            return
        }
        if !flusherStarted {
            flusherStarted = true
            // Weak: a writer that goes away (tests make their own) ends its flusher within a second.
            let delay = maxDelay
            let thread = Thread { [weak self] in
                while let pending = self?.waitForPending() {
                    guard pending else { continue }
                    Thread.sleep(forTimeInterval: delay)  // holding no reference: the writer may go meanwhile
                    self?.flush()
                }
            }
            thread.name = "log-writer"
            thread.start()
        }
        condition.signal()
    }

    /// Writes every line logged so far.
    package func flush() {
        condition.lock()
        defer { condition.unlock() }
        writePending()
    }

    deinit {
        writePending()
    }

    /// Waits up to a second for a pending line; whether one is there.
    private func waitForPending() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if pending.isEmpty { _ = condition.wait(until: Date(timeIntervalSinceNow: 1)) }
        return !pending.isEmpty
    }

    /// Call with `condition` held. A failed write (a closed stderr) drops the batch: logging must not stop serving.
    private func writePending() {
        guard !pending.isEmpty else { return }
        try? FileOutput.writeAll(pending, to: fileDescriptor, target: "standard error")
        pending.removeAll(keepingCapacity: true)
    }
}
