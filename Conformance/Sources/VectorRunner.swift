import Foundation

/// Replays vectors against one driver, each in its own fresh directory, and judges every step.
final class VectorRunner {
    enum Status {
        case pass
        case deviation(reasons: [String])   // passed, using this implementation's recorded deviations
        case fail(Failure)
        case skipped(reason: String)
    }

    struct Failure {
        let step: String
        let expected: String
        let actual: String
        let reply: String
        let deviationReason: String?
    }

    private let driver: Driver
    private let workRoot: URL
    /// Prints every step's outcome (for writing or debugging a vector).
    private let trace: Bool
    private var directory = URL(fileURLWithPath: "/")
    private var params = OpenParams()
    private var reasons: [String] = []

    init(driver: Driver, workRoot: URL, trace: Bool = false) {
        self.driver = driver
        self.workRoot = workRoot
        self.trace = trace
    }

    func run(_ vector: Vector) -> Status {
        if let reason = vector.skip[driver.name] { return .skipped(reason: reason) }
        defer { driver.reset() }
        directory = workRoot.appendingPathComponent(driver.name).appendingPathComponent(vector.name)
            .appendingPathComponent("cache")
        params = vector.params
        reasons = []
        do {
            try vector.initial.materialize(at: directory)
            try run(vector.steps, path: "")
        } catch let failure as StepFailure {
            return .fail(failure.failure)
        } catch {
            return .fail(Failure(step: "setup", expected: "-", actual: "\(error)", reply: "", deviationReason: nil))
        }
        return reasons.isEmpty ? .pass : .deviation(reasons: reasons)
    }

    private struct StepFailure: Error { let failure: Failure }

    private func run(_ steps: [Step], path: String) throws(StepFailure) {
        for (i, step) in steps.enumerated() {
            let label = "\(path)step \(i + 1) (\(step.operation.label))"
            if case .repeatSteps(let times, let inner) = step.operation {
                for n in 1...max(times, 1) { try run(inner, path: "\(label) #\(n): ") }
                continue
            }
            let (expectation, reason) = step.expectation(for: driver.name)
            var reply = ""
            let actual: JSONValue
            do {
                actual = try perform(step, expectation: expectation, reply: &reply)
            } catch {
                throw StepFailure(failure: Failure(step: label, expected: "\(expectation)", actual: "driver broke: \(error)",
                                                   reply: reply, deviationReason: reason))
            }
            if trace { print("  [\(driver.name)] \(label) -> \(actual)") }
            guard VectorRunner.matches(actual, expectation) else {
                let expected = if case .equals(let e) = expectation { e.description } else { "(any outcome but an error)" }
                throw StepFailure(failure: Failure(step: label, expected: expected, actual: actual.description,
                                                   reply: reply, deviationReason: reason))
            }
            if let reason, !reasons.contains(reason) { reasons.append(reason) }
        }
    }

    static func matches(_ actual: JSONValue, _ expectation: Step.Expectation) -> Bool {
        switch expectation {
        case .equals(let expected): return actual == expected
        case .noError:
            if case .object(let o) = actual, o["error"] != nil { return false }
            return true
        }
    }

    /// Executes one step and returns its outcome in the vocabulary of vector expectations.
    private func perform(_ step: Step, expectation: Step.Expectation, reply: inout String) throws(ConformanceError) -> JSONValue {
        func call(_ command: String, _ decode: ([String]) -> JSONValue? = { $0.isEmpty ? .string("ok") : nil })
            throws(ConformanceError) -> JSONValue {
            reply = try driver.send(command)
            switch Reply(reply) {
            case .ok(let payload): return decode(payload) ?? .object(["malformedReply": .string(reply)])
            case .null: return .null
            case .error(let kind, _): return .error(kind)
            case nil: return .object(["malformedReply": .string(reply)])
            }
        }
        func single(_ f: @escaping (String) -> JSONValue?) -> ([String]) -> JSONValue? {
            { $0.count == 1 ? f($0[0]) : nil }
        }
        let text = single { Hex.decode($0).map { .string(ValueText.encode($0)) } }
        let h = KeyToken.encode  // handles default to keys, so they are encoded like keys
        switch step.operation {
        case .open(let p, let options):
            params = p
            return try call(p.command(directory: directory.path, options: options))
        case .reopen(let options):
            let closed = try call("close")
            guard closed == .string("ok") else { return closed }
            return try call(params.command(directory: directory.path, options: options))
        case .simple(let command): return try call(command)
        case .size: return try call("size", single { Int64($0).map(JSONValue.int) })
        case .iterate: return try call("snapshots") { Reply.entries($0).map { .array($0.map { .string($0.key) }) } }
        case .snapshots:
            return try call("snapshots") { Reply.entries($0).map { .array($0.map { .array([.string($0.key), $0.values]) }) } }
        case .edit(let key, let handle): return try call("edit \(h(handle)) \(KeyToken.encode(key))")
        case .write(let handle, let index, let value): return try call("write \(h(handle)) \(index) \(Hex.encode(value))")
        case .set(let key, let values):
            let edited = try call("edit __set \(KeyToken.encode(key))")
            guard edited == .string("ok") else { return edited }
            for (i, v) in values.enumerated() {
                let written = try call("write __set \(i) \(Hex.encode(v))")
                guard written == .string("ok") else { return written }
            }
            return try call("commit __set")
        case .finishEdit(let command, let handle): return try call("\(command) \(h(handle))")
        case .editorRead(let handle, let index): return try call("editorRead \(h(handle)) \(index)", text)
        case .get(let key): return try call("get \(KeyToken.encode(key))", Reply.values)
        case .snapshot(let key, let handle):
            return try call("snapshot \(h(handle)) \(KeyToken.encode(key))") { tokens in
                let lengths = tokens.compactMap { Int64($0).map(JSONValue.int) }
                return lengths.count == tokens.count ? .array(lengths) : nil
            }
        case .snapshotRead(let handle, let index): return try call("snapshotRead \(h(handle)) \(index)", text)
        case .snapshotEdit(let handle, let editor): return try call("snapshotEdit \(h(handle)) \(h(editor))")
        case .snapshotClose(let handle): return try call("snapshotClose \(h(handle))")
        case .remove(let key): return try call("remove \(KeyToken.encode(key))", single { Bool($0).map(JSONValue.bool) })
        case .setMaxSize(let n): return try call("setMaxSize \(n)")
        case .journal: return DirectoryProbe(directory).journal(expectation: expectation)
        case .files(let names): return DirectoryProbe(directory).presence(expectation: expectation, names: names)
        case .file(let name): return DirectoryProbe(directory).content(name)
        case .writeFile(let name, let content): return DirectoryProbe(directory).write(name, content)
        case .deleteFile(let name): return DirectoryProbe(directory).delete(name)
        case .wipeDirectory: return DirectoryProbe(directory).wipe()
        case .journalFault(let on): return try call("journalFault \(on ? "on" : "off")")
        case .repeatSteps: preconditionFailure("repeat is expanded by run(_:path:)")
        }
    }
}
