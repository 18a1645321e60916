import Foundation

/// One step of a vector: an operation, what it must produce, and per-implementation known deviations.
struct Step: Sendable {
    enum Expectation: Sendable, Equatable {
        case noError           // no `expect` given: any outcome except an error
        case equals(JSONValue)
    }

    struct Deviation: Sendable {
        let expectation: Expectation
        let reason: String
    }

    let operation: Operation
    let expectation: Expectation
    /// Implementation name (`swift`, `okhttp`, `jw`, ...) to what that implementation does instead.
    let deviations: [String: Deviation]

    init(json: JSONValue, params: OpenParams) throws(StepFields.Failure) {
        guard case .object(let object) = json else { throw .init("a step must be a JSON object") }
        let fields = StepFields(object, ignoring: Step.expectationFields.union(["note", "deviations"]))
        operation = try Operation(fields: fields, params: params)
        expectation = try Step.expectation(op: operation, fields: StepFields(object), params: params)
        var deviations: [String: Deviation] = [:]
        if case .object(let byImplementation) = object["deviations"] {
            for (implementation, value) in byImplementation {
                guard case .object(let d) = value else { throw .init("deviation \"\(implementation)\" must be an object") }
                let f = StepFields(d)
                let reason = try f.string("reason")
                let expectation = try Step.expectation(op: operation, fields: f, params: params)
                try f.rejectUnused()
                deviations[implementation] = Deviation(expectation: expectation, reason: reason)
            }
        } else if object["deviations"] != nil {
            throw .init("\"deviations\" must be an object keyed by implementation")
        }
        self.deviations = deviations
    }

    private static let expectationFields: Set<String> = ["expect", "body", "lineCount", "present", "absent"]

    /// `journal` steps may give `body` (lines after the standard header); `files` steps give `present`/`absent`.
    private static func expectation(op: Operation, fields f: StepFields, params: OpenParams)
        throws(StepFields.Failure) -> Expectation {
        switch op {
        case .journal where f.has("lineCount"):
            return .equals(.object(["lineCount": .int(try f.int64("lineCount"))]))
        case .journal where f.has("body"):
            let lines = params.headerLines + (try f.strings("body"))
            return .equals(.array(lines.map(JSONValue.string)))
        case .files:
            let present = try f.strings("present").sorted(), absent = try f.strings("absent").sorted()
            if present.isEmpty && absent.isEmpty { return .noError }
            return .equals(.object([
                "present": .array(present.map(JSONValue.string)), "absent": .array(absent.map(JSONValue.string)),
            ]))
        default:
            guard let e = f.raw("expect") else { return .noError }
            return .equals(e)
        }
    }

    /// The expectation for `implementation`, and the reason when it is a recorded deviation.
    func expectation(for implementation: String) -> (Expectation, deviationReason: String?) {
        if let d = deviations[implementation] { return (d.expectation, d.reason) }
        return (expectation, nil)
    }
}
