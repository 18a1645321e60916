import Foundation

/// Collects every recorded deviation and skip, for `--list-deviations` (the README's table is generated from it).
struct DeviationCatalog {
    private var entries: [String: [String: [String]]] = [:]  // implementation -> reason -> vectors

    init(_ vectors: [Vector]) {
        for vector in vectors {
            for (implementation, reason) in vector.skip { add(implementation, "skipped: " + reason, vector.name) }
            visit(vector.steps, vector: vector.name)
        }
    }

    private mutating func visit(_ steps: [Step], vector: String) {
        for step in steps {
            for (implementation, d) in step.deviations { add(implementation, d.reason, vector) }
            if case .repeatSteps(_, let inner) = step.operation { visit(inner, vector: vector) }
        }
    }

    private mutating func add(_ implementation: String, _ reason: String, _ vector: String) {
        if entries[implementation, default: [:]][reason, default: []].last != vector {
            entries[implementation, default: [:]][reason, default: []].append(vector)
        }
    }

    var markdown: String {
        var out = "| implementation | deviation (reason) | vectors |\n|---|---|---|\n"
        for implementation in entries.keys.sorted() {
            for (reason, vectors) in entries[implementation]!.sorted(by: { $0.key < $1.key }) {
                let escaped = reason.replacingOccurrences(of: "|", with: "\\|")
                out += "| \(implementation) | \(escaped) | \(vectors.map { "`\($0)`" }.joined(separator: ", ")) |\n"
            }
        }
        return out
    }
}
