import Foundation

/// A conformance vector: one JSON file in Conformance/vectors (format in Conformance/README.md).
struct Vector: Sendable {
    let name: String
    let summary: String
    /// Spec references, e.g. "JW 4.1 #6", "OK 4.2 #7", "Appendix B".
    let sources: [String]
    let params: OpenParams
    let initial: InitialDirectory
    let steps: [Step]
    /// Implementations that cannot run this vector at all (e.g. JW has no evictAll), with the reason.
    let skip: [String: String]

    init(file: URL) throws(ConformanceError) {
        let name = file.deletingPathExtension().lastPathComponent
        func invalid(_ reason: String) -> ConformanceError { .invalidVector(file: file.lastPathComponent, reason: reason) }
        let json: JSONValue
        do {
            json = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: file))
        } catch {
            throw invalid("not valid JSON: \(error)")
        }
        guard case .object(let object) = json else { throw invalid("the top level must be an object") }
        do throws(StepFields.Failure) {
            let f = StepFields(object, ignoring: ["notes"])
            if let declared = try f.optionalString("name"), declared != name {
                throw StepFields.Failure("\"name\" is \(declared) but the file is \(name).json")
            }
            self.name = name
            summary = try f.string("summary")
            sources = try f.strings("sources")
            var params = OpenParams()
            if case .object(let p) = f.raw("params") {
                let pf = StepFields(p)
                params.appVersion = try pf.optionalInt("appVersion").map(Int.init) ?? params.appVersion
                params.valueCount = try pf.optionalInt("valueCount").map(Int.init) ?? params.valueCount
                params.maxSize = try pf.optionalInt("maxSize") ?? params.maxSize
                try pf.rejectUnused()
            }
            self.params = params
            if case .object(let i) = f.raw("initial") {
                initial = try InitialDirectory(fields: StepFields(i), params: params)
            } else {
                initial = InitialDirectory()
            }
            steps = try f.steps("steps", params: params)
            skip = try f.options(named: "skip")
            try f.rejectUnused()
            try Vector.checkSkips(steps: steps, skip: skip)
        } catch {
            throw invalid(error.message)
        }
    }

    /// Operations an implementation's API lacks (its driver answers `error unsupported`). A vector using one must
    /// skip that implementation, or the rest of its checks would silently never run there.
    static let missingOperations: [String: Set<String>] = [
        "jw": ["evictAll", "iterate", "snapshots"],
        "jw202": ["evictAll", "iterate", "snapshots"],
    ]

    private static func checkSkips(steps: [Step], skip: [String: String]) throws(StepFields.Failure) {
        func used(_ steps: [Step]) -> Set<String> {
            steps.reduce(into: []) { names, step in
                switch step.operation {
                case .repeatSteps(_, let inner): names.formUnion(used(inner))
                case .simple(let command): names.insert(command)
                case .iterate: names.insert("iterate")
                case .snapshots: names.insert("snapshots")
                default: break
                }
            }
        }
        let operations = used(steps)
        for (implementation, missing) in missingOperations.sorted(by: { $0.key < $1.key }) where skip[implementation] == nil {
            if let op = operations.intersection(missing).sorted().first {
                throw StepFields.Failure("uses \(op), which \(implementation) does not have: add \"skip\": {\"\(implementation)\": ...}"
                    + " (move such checks into their own vector so \(implementation) still runs the rest)")
            }
        }
    }

    /// Every `*.json` in `directory`, sorted by name.
    static func loadAll(from directory: URL) throws(ConformanceError) -> [Vector] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw .io(path: directory.path, reason: "cannot list vectors (pass --vectors DIR): \(error)")
        }
        var vectors: [Vector] = []
        for name in names.sorted() where name.hasSuffix(".json") {
            vectors.append(try Vector(file: directory.appendingPathComponent(name)))
        }
        return vectors
    }
}
