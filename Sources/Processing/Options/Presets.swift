/// Named option lists from the server's configuration (imgproxy's IMGPROXY_PRESETS): `pr:NAME` expands to
/// the list, a preset named `default` applies to every URL first.
public struct Presets: Sendable, Hashable {
    public static let defaultName = "default"

    /// One `name:arg:arg` segment of a preset's body, kept unparsed so it expands in the URL's context.
    struct Option: Sendable, Hashable {
        var name: String
        var arguments: [String]
    }

    /// One step of an expanded preset: an option, or a preset's name (for `usedPresets`).
    enum Step: Sendable, Hashable {
        case option(Option)
        case used(String)
    }

    /// Each preset as written.
    private var table: [String: [Option]] = [:]
    /// Each preset expanded at start-up into the options it applies, in order, so a request applies a list rather
    /// than walking references: presets naming each other twice per level would otherwise cost 2^depth per request.
    private var expanded: [String: [Step]] = [:]
    /// No presets.
    public init() {}

    /// imgproxy's environment form: `thumb=rs:fill:150:150/g:sm,hero=rs:fit:1200:0/q:85`.
    public init(list: String) throws(ProcessingError) {
        try self.init(definitions: list.split(separator: ",").map(String.init))
    }

    /// One `NAME=options` per element (`--preset` repeated); blank elements and `#` comments are skipped.
    /// Every preset is checked by applying it, so a bad one fails at start-up, not on a request.
    public init(definitions: [String]) throws(ProcessingError) {
        for definition in definitions {
            let trimmed = definition.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let halves = trimmed.split(separator: "=", omittingEmptySubsequences: false)
            guard halves.count == 2 else { throw .badPreset(definition: definition, reason: "it needs exactly one \"=\"") }
            let name = halves[0].trimmingCharacters(in: .whitespaces)
            let body = halves[1].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { throw .badPreset(definition: definition, reason: "the name is empty") }
            guard !body.isEmpty else { throw .badPreset(definition: definition, reason: "the option list is empty") }
            var options = [Option]()
            for segment in body.split(separator: "/") {
                let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
                guard parts.count > 1 else {
                    throw .badPreset(definition: definition, reason: "\"\(segment)\" is not an option:argument")
                }
                options.append(Option(name: parts[0], arguments: Array(parts.dropFirst())))
            }
            table[name] = options
        }
        var expansion = PresetExpansion(table: table)
        for name in table.keys.sorted() {
            do {
                expanded[name] = try expansion.steps(of: name)
                var scratch = ProcessingOptions()
                try scratch.applyPresets([name], presets: self)
            } catch {
                throw .badPreset(definition: name, reason: error.description)
            }
        }
    }

    public var names: [String] { table.keys.sorted() }

    public var isEmpty: Bool { table.isEmpty }

    func contains(_ name: String) -> Bool { table[name] != nil }

    /// The preset's options as written, its references unexpanded.
    func written(_ name: String) -> [Option]? { table[name] }

    /// The preset's options with the presets it names expanded (`PresetExpansion`).
    func steps(of name: String) -> [Step]? { expanded[name] }
}
