/// Expands presets that name presets, once, when they are loaded (imgproxy's `applyPresetOption` does it per
/// request). A preset already being expanded is skipped, as imgproxy skips recursion. An option that a later
/// identical option repeats is dropped: every option sets fields from its own arguments and from fields it leaves as
/// they are (a gravity's offsets, padding's other sides), so the later one decides everything the earlier one set. That keeps each
/// expansion no longer than the distinct options it holds, however often presets name each other.
struct PresetExpansion {
    private let table: [String: [Presets.Option]]
    /// Expansions by name and the part of the chain that name can reach (which is all that changes its expansion).
    private var memo: [String: [Presets.Step]] = [:]
    private var reachable: [String: Set<String>] = [:]

    init(table: [String: [Presets.Option]]) {
        self.table = table
    }

    mutating func steps(of name: String) throws(ProcessingError) -> [Presets.Step] {
        try steps(of: name, chain: [])
    }

    private mutating func steps(of name: String, chain: Set<String>) throws(ProcessingError) -> [Presets.Step] {
        let key = name + "\u{0}" + chain.intersection(reach(name)).sorted().joined(separator: "\u{0}")
        if let known = memo[key] { return known }
        guard let body = table[name] else { throw .unknownPreset(name) }
        let inner = chain.union([name])
        var steps: [Presets.Step] = [.used(name)]
        for option in body {
            guard OptionName(spelling: option.name) == .preset else {
                steps.append(.option(option))
                continue
            }
            for referenced in option.arguments where !referenced.isEmpty && !inner.contains(referenced) {
                steps += try self.steps(of: referenced, chain: inner)
            }
        }
        let compact = Self.laterRepeatsKept(steps)
        memo[key] = compact
        return compact
    }

    /// Every preset `name` names, directly or not.
    private mutating func reach(_ name: String) -> Set<String> {
        if let known = reachable[name] { return known }
        var seen: Set<String> = []
        var stack = [name]
        while let next = stack.popLast() {
            for option in table[next] ?? [] where OptionName(spelling: option.name) == .preset {
                for referenced in option.arguments where !referenced.isEmpty && seen.insert(referenced).inserted {
                    stack.append(referenced)
                }
            }
        }
        reachable[name] = seen
        return seen
    }

    /// Options repeated later are dropped, the last kept; names used are kept once, the first.
    private static func laterRepeatsKept(_ steps: [Presets.Step]) -> [Presets.Step] {
        var seenOptions: Set<Presets.Option> = []
        var kept: [Presets.Step] = []
        for step in steps.reversed() {
            if case .option = step, !seenOptions.insert(step.option!).inserted { continue }
            kept.append(step)
        }
        var seenNames: Set<String> = []
        return kept.reversed().filter { step in
            guard case let .used(name) = step else { return true }
            return seenNames.insert(name).inserted
        }
    }
}

extension Presets.Step {
    var option: Presets.Option? {
        if case let .option(option) = self { option } else { nil }
    }
}
