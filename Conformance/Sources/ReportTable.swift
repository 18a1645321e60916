import Foundation

/// Prints the vector × implementation table, the diffs of failures, and per-implementation counts.
struct ReportTable {
    private var implementations: [String] = []
    private var rows: [(vector: String, statuses: [String: VectorRunner.Status])] = []

    mutating func add(vector: String, implementation: String, status: VectorRunner.Status) {
        if !implementations.contains(implementation) { implementations.append(implementation) }
        if rows.last?.vector != vector { rows.append((vector, [:])) }
        rows[rows.count - 1].statuses[implementation] = status
    }

    var failureCount: Int {
        rows.reduce(0) { n, row in n + row.statuses.values.filter { if case .fail = $0 { true } else { false } }.count }
    }

    func print(verbose: Bool) {
        let width = max(24, rows.map(\.vector.count).max() ?? 0) + 2
        let header = "vector".padding(toLength: width, withPad: " ", startingAt: 0)
            + implementations.map { $0.padding(toLength: 16, withPad: " ", startingAt: 0) }.joined()
        Swift.print(header)
        for row in rows {
            Swift.print(row.vector.padding(toLength: width, withPad: " ", startingAt: 0)
                + implementations.map { (ReportTable.cell(row.statuses[$0])).padding(toLength: 16, withPad: " ", startingAt: 0) }
                .joined())
        }
        for row in rows {
            for implementation in implementations {
                switch row.statuses[implementation] {
                case .fail(let f):
                    Swift.print("\nFAIL \(row.vector) [\(implementation)] at \(f.step)")
                    if let reason = f.deviationReason { Swift.print("  (expectation from the recorded deviation: \(reason))") }
                    Swift.print("  - expected: \(f.expected)\n  + actual:   \(f.actual)")
                    if !f.reply.isEmpty { Swift.print("    last driver reply: \(f.reply.prefix(300))") }
                case .deviation(let reasons) where verbose:
                    Swift.print("deviation \(row.vector) [\(implementation)]: \(reasons.joined(separator: "; "))")
                default: break
                }
            }
        }
        Swift.print("")
        for implementation in implementations {
            var counts: [String: Int] = [:]
            for row in rows { counts[ReportTable.cell(row.statuses[implementation]), default: 0] += 1 }
            Swift.print("\(implementation): \(counts["pass"] ?? 0) pass, \(counts["deviation"] ?? 0) known-deviation, "
                + "\(counts["FAIL"] ?? 0) fail, \(counts["skip"] ?? 0) skipped")
        }
    }

    private static func cell(_ status: VectorRunner.Status?) -> String {
        switch status {
        case .pass: "pass"
        case .deviation: "deviation"
        case .fail: "FAIL"
        case .skipped: "skip"
        case nil: "-"
        }
    }
}
