import ArgumentParser
import Foundation

/// `thumbcache serve`'s flags fall back to `THUMBCACHE_<FLAG>` variables (a container sets its
/// configuration that way): the flag wins when both are given.
enum EnvironmentFallback {
    static func variable(for flag: String) -> String {
        "THUMBCACHE_" + flag.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// The flag's value, else the variable's, parsed as the flag would be (a bad value is a usage error).
    static func value<T: ExpressibleByArgument>(_ given: T?, flag: String) throws -> T? {
        if let given { return given }
        let name = variable(for: flag)
        guard let text = ProcessInfo.processInfo.environment[name], !text.isEmpty else { return nil }
        guard let value = T(argument: text) else {
            throw Console.Failure(description: "\(name)=\(text) is not a valid value for --\(flag)", exitCode: Console.Status.usage)
        }
        return value
    }

    /// A flag given, or its variable set to 1, true or yes.
    static func flag(_ given: Bool, flag: String) -> Bool {
        if given { return true }
        let text = ProcessInfo.processInfo.environment[variable(for: flag)]?.lowercased() ?? ""
        return ["1", "true", "yes"].contains(text)
    }

    /// A repeatable option, else its variable split at commas and spaces.
    static func list(_ given: [String], flag: String) -> [String] {
        if !given.isEmpty { return given }
        let text = ProcessInfo.processInfo.environment[variable(for: flag)] ?? ""
        return text.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
    }

    /// "(env THUMBCACHE_X)" for the help text.
    static func help(_ text: String, flag: String) -> String {
        "\(text) (env \(variable(for: flag)))"
    }
}
