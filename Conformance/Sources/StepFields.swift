import Foundation

/// A step's JSON object with typed accessors; remembers which fields were read so typos are reported.
final class StepFields {
    struct Failure: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    private let fields: [String: JSONValue]
    private var used: Set<String> = []

    init(_ fields: [String: JSONValue], ignoring ignored: Set<String> = []) {
        self.fields = fields
        used = ignored
    }

    func has(_ name: String) -> Bool { fields[name] != nil }

    func raw(_ name: String) -> JSONValue? {
        used.insert(name)
        return fields[name]
    }

    func string(_ name: String) throws(Failure) -> String {
        guard let s = try optionalString(name) else { throw Failure("missing string field \"\(name)\"") }
        return s
    }

    func optionalString(_ name: String) throws(Failure) -> String? {
        guard let v = raw(name) else { return nil }
        guard let s = v.stringValue else { throw Failure("field \"\(name)\" must be a string") }
        return s
    }

    /// Editor handles default to the key, so single-editor vectors can just name the key.
    func handle(_ name: String) throws(Failure) -> String {
        if let h = try optionalString(name) { return h }
        return try string("key")
    }

    func int(_ name: String) throws(Failure) -> Int { Int(try int64(name)) }

    func int64(_ name: String) throws(Failure) -> Int64 {
        guard let i = try optionalInt(name) else { throw Failure("missing integer field \"\(name)\"") }
        return i
    }

    func optionalInt(_ name: String) throws(Failure) -> Int64? {
        guard let v = raw(name) else { return nil }
        guard let i = v.intValue else { throw Failure("field \"\(name)\" must be an integer") }
        return i
    }

    func strings(_ name: String) throws(Failure) -> [String] {
        guard let v = raw(name) else { return [] }
        guard let items = v.arrayValue?.compactMap(\.stringValue), items.count == v.arrayValue?.count else {
            throw Failure("field \"\(name)\" must be an array of strings")
        }
        return items
    }

    func value(_ name: String) throws(Failure) -> Data {
        try ValueText.decode(try string(name), field: name)
    }

    func values(_ name: String) throws(Failure) -> [Data] {
        var result: [Data] = []
        for s in try strings(name) { result.append(try ValueText.decode(s, field: name)) }
        return result
    }

    /// An object of strings, e.g. open's `options` or a vector's `skip`.
    func options(named name: String = "options") throws(Failure) -> [String: String] {
        guard let v = raw(name) else { return [:] }
        guard case .object(let o) = v else { throw Failure("field \"\(name)\" must be an object") }
        var result: [String: String] = [:]
        for (k, value) in o {
            guard let s = value.stringValue else { throw Failure("\(name).\(k) must be a string") }
            result[k] = s
        }
        return result
    }

    func steps(_ name: String, params: OpenParams) throws(Failure) -> [Step] {
        guard let items = raw(name)?.arrayValue else { throw Failure("field \"\(name)\" must be an array of steps") }
        var result: [Step] = []
        for item in items { result.append(try Step(json: item, params: params)) }
        return result
    }

    func rejectUnused() throws(Failure) {
        let unknown = Set(fields.keys).subtracting(used)
        if !unknown.isEmpty { throw Failure("unknown field(s) \(unknown.sorted())") }
    }
}
