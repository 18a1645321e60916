import ArgumentParser
import Foundation

/// `thumbcache serve`'s flags fall back to `THUMBCACHE_<FLAG>` variables (a container sets its
/// configuration that way): the flag wins when both are given. A value that is not of the flag's kind or
/// range is a usage error (exit 64) naming the flag or the variable it came from: a server must not start
/// with a setting that means something else than was written.
enum EnvironmentFallback {
    /// A value and where it came from.
    struct Given<T> {
        var value: T
        /// `--port 83617` or `THUMBCACHE_PORT=83617`, for messages.
        var origin: String

        /// The usage error for this value: `<origin>: <problem>`.
        func failure(_ problem: String) -> Console.Failure {
            Console.Failure(description: "\(origin): \(problem)", exitCode: Console.Status.usage)
        }
    }

    static func variable(for flag: String) -> String {
        "THUMBCACHE_" + flag.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// The flag's value, else the variable's, parsed as the flag would be (a bad value is a usage error). A
    /// variable set to nothing counts as unset, unless `emptyIsError`: for a secret (`THUMBCACHE_KEY=` from a
    /// half-written env file must not start an unsigned server).
    static func given<T: ExpressibleByArgument>(_ given: T?, flag: String, emptyIsError: Bool = false) throws -> Given<T>? {
        if let given { return Given(value: given, origin: "--\(flag) \(given)") }
        let name = variable(for: flag)
        guard let text = ProcessInfo.processInfo.environment[name] else { return nil }
        if text.isEmpty {
            guard emptyIsError else { return nil }
            throw Console.Failure(description: "\(name) is set but empty: give a value, or unset it (--\(flag))",
                                  exitCode: Console.Status.usage)
        }
        guard let value = T(argument: text) else {
            throw Console.Failure(description: "\(name)=\(text) is not a valid value for --\(flag)", exitCode: Console.Status.usage)
        }
        return Given(value: value, origin: "\(name)=\(text)")
    }

    static func value<T: ExpressibleByArgument>(_ given: T?, flag: String, emptyIsError: Bool = false) throws -> T? {
        try self.given(given, flag: flag, emptyIsError: emptyIsError)?.value
    }

    /// As `value`, and within `range` (a usage error naming the range otherwise).
    static func value<T: ExpressibleByArgument & Comparable>(_ given: T?, flag: String, in range: ClosedRange<T>) throws -> T? {
        guard let found = try self.given(given, flag: flag) else { return nil }
        guard range.contains(found.value) else {
            throw found.failure("--\(flag) must be \(range.lowerBound)-\(range.upperBound)")
        }
        return found.value
    }

    /// A flag given, or its variable set to a boolean: 1/0, true/false, yes/no, on/off, in any case (anything
    /// else is a usage error: a typo must not silently mean off).
    static func flag(_ given: Bool, flag: String) throws -> Bool {
        if given { return true }
        let name = variable(for: flag)
        guard let text = ProcessInfo.processInfo.environment[name], !text.isEmpty else { return false }
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default:
            throw Console.Failure(description: "\(name)=\(text): must be 1/0, true/false, yes/no or on/off (--\(flag))",
                                  exitCode: Console.Status.usage)
        }
    }

    /// A repeatable option, else its variable split at commas and spaces; each with where it came from. A
    /// variable that is set but names nothing (`""`, `","`) is a usage error: for a restriction such as
    /// `--allow-source`, an empty list would mean no restriction at all.
    static func list(_ given: [String], flag: String) throws -> [Given<String>] {
        if !given.isEmpty { return given.map { Given(value: $0, origin: "--\(flag) \($0)") } }
        let name = variable(for: flag)
        guard let text = ProcessInfo.processInfo.environment[name] else { return [] }
        let items = text.split(whereSeparator: { $0 == "," || $0 == " " })
        guard !items.isEmpty else {
            throw Console.Failure(description: "\(name) is set but names nothing: give at least one value, or unset it (--\(flag))",
                                  exitCode: Console.Status.usage)
        }
        return items.map { Given(value: String($0), origin: "\(name) item \($0)") }
    }

    /// "(env THUMBCACHE_X)" for the help text.
    static func help(_ text: String, flag: String) -> String {
        "\(text) (env \(variable(for: flag)))"
    }
}
