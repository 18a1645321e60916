import Foundation
import ThumbcacheKit

/// Warm progress on stderr: a live, rewritten line on a terminal; a plain line every few seconds otherwise
/// (logs, CI); nothing with --quiet.
final class ProgressPrinter: Sendable {
    enum Mode: Sendable {
        case live
        case periodic(Duration)
        case quiet
    }

    private let mode: Mode
    private let lastPrinted = Locked<ContinuousClock.Instant?>(nil)

    init(mode: Mode) { self.mode = mode }

    static func automatic(quiet: Bool, interval: Duration) -> ProgressPrinter {
        if quiet { return ProgressPrinter(mode: .quiet) }
        return ProgressPrinter(mode: isatty(STDERR_FILENO) == 1 ? .live : .periodic(interval))
    }

    func update(_ report: WarmReport) {
        let interval: Duration
        switch mode {
        case .quiet: return
        case .live: interval = .milliseconds(100)
        case .periodic(let every): interval = every
        }
        let now = ContinuousClock.now
        let due = lastPrinted.withLock { last in
            guard last.map({ now - $0 >= interval }) ?? true else { return false }
            last = now
            return true
        }
        guard due || report.done == report.total else { return }
        let line = Self.describe(report)
        if case .live = mode {
            Console.standardError("\r\u{1B}[2K\(line)")
        } else if due {
            Console.standardError("thumbcache: \(line)\n")
        }
    }

    /// Ends the live line so the report starts on its own.
    func finish() {
        if case .live = mode { Console.standardError("\r\u{1B}[2K") }
    }

    static func describe(_ report: WarmReport) -> String {
        let percent = report.total == 0 ? 100 : 100 * report.done / report.total
        let rate = report.rate
        let eta = rate > 0 ? (Double(report.total - report.done) / rate).rounded(.up) : 0
        return "warming \(report.done)/\(report.total) (\(percent)%)  \(String(format: "%.1f", rate)) URLs/s  "
            + "ETA \(String(format: "%.0f", eta))s  \(report.failedCount) failed"
    }
}
