import Foundation
import Testing

/// `thumbcache serve`'s settings: a value out of its range or not of its kind is a usage error (exit 64, one
/// line naming the flag or the variable and what is allowed), never a server that runs with another meaning.
/// Every run here has an unusable cache directory: a configuration wrongly accepted fails opening it (exit 8)
/// before anything binds, so no test can start a server or hang.
struct ServeConfigurationTests {
    static let base = ["serve", "--cache-dir", "/dev/null/not-a-directory"]

    static func run(_ arguments: [String], _ environment: [String: String] = [:]) throws -> (status: Int32, stderr: String) {
        let run = try ServeProcess.run(base + arguments, environment: environment)
        return (run.status, run.stderr)
    }

    /// (flag, bad value, what the message must name as allowed).
    static let outOfRange: [(String, String, String)] = [
        ("port", "83617", "0-65535"), ("port", "65536", "0-65535"),
        ("metrics-port", "70000", "0-65535"),
        ("max-connections", "0", "1-1000000"),
        ("workers", "0", "1-4096"),
        ("queue", "1000001", "0-1000000"),
        ("max-size", "0", "1-"),
        ("min-ttl", "-5", "0-2147483647"), ("max-ttl", "2147483648", "0-2147483647"),
        ("timeout", "0", "seconds"), ("idle-timeout", "nan", "seconds"), ("header-timeout", "1e12", "seconds"),
        ("shutdown-timeout", "-1", "seconds"), ("drain-timeout", "-1", "seconds"),
        ("memory-cache-size", "lots", "size"),
        ("log-format", "xml", "text or json"),
        ("max-result-dimension", "-1", "0-"),
        // Not written (HEIC), no format at all, an empty item: each named, with the formats that can be listed.
        ("preferred-formats", "jpeg,svg", "\"svg\" is not a format thumbcache writes: list jpeg, png"),
        ("preferred-formats", "png,bogus", "\"bogus\""), ("preferred-formats", "jpeg,,png", "an empty name"),
    ]

    @Test(arguments: outOfRange)
    func aFlagOutOfRangeIsAUsageError(_ flag: String, _ value: String, _ allowed: String) throws {
        let run = try Self.run(["--\(flag)=\(value)"])
        #expect(run.status == 64, "--\(flag) \(value): \(run.status) \(run.stderr)")
        #expect(run.stderr.contains("--\(flag)") && run.stderr.contains(allowed), "\(run.stderr)")
        #expect(run.stderr.trimmingCharacters(in: .newlines).split(separator: "\n").count == 1, "one line: \(run.stderr)")
    }

    @Test(arguments: outOfRange)
    func aVariableOutOfRangeIsAUsageError(_ flag: String, _ value: String, _ allowed: String) throws {
        let name = "THUMBCACHE_" + flag.uppercased().replacingOccurrences(of: "-", with: "_")
        let run = try Self.run([], [name: value])
        #expect(run.status == 64, "\(name)=\(value): \(run.status) \(run.stderr)")
        #expect(run.stderr.contains("\(name)=\(value)") && run.stderr.contains(allowed), "\(run.stderr)")
    }

    @Test func valuesInRangeAreAccepted() throws {
        let run = try Self.run(["--port", "65535", "--metrics-port", "0", "--max-connections", "1", "--queue", "0",
                                "--drain-timeout", "0", "--min-ttl", "0", "--allow-source", "https://img.example.com/photos/"])
        #expect(run.status == 8, "past the configuration, to the cache directory: \(run.stderr)")
    }

    /// Issue 33: flags that cannot hold together are a usage error naming both, before anything binds a port
    /// (the same --port and --metrics-port printed "serving on" and then exited 1), given as flags or variables.
    /// (arguments, variables, what the message must name.)
    static let conflicts: [([String], [String: String], [String])] = [
        (["--port", "9311", "--metrics-port", "9311"], [:], ["--port", "--metrics-port", "9311"]),
        ([], ["THUMBCACHE_PORT": "9312", "THUMBCACHE_METRICS_PORT": "9312"], ["--port", "--metrics-port", "9312"]),
        (["--metrics-port", "8080"], [:], ["--port", "--metrics-port", "8080"]),  // the default port
        (["--port", "9313"], ["THUMBCACHE_METRICS_PORT": "9313"], ["--port", "--metrics-port"]),
        (["--min-ttl", "600", "--max-ttl", "60"], [:], ["--min-ttl", "--max-ttl"]),
        ([], ["THUMBCACHE_MIN_TTL": "600", "THUMBCACHE_MAX_TTL": "60"], ["--min-ttl", "--max-ttl"]),
        (["--variant-disk-size", "2GB", "--max-disk-size", "1GB"], [:], ["--variant-disk-size", "--max-disk-size"]),
        (["--only-presets"], [:], ["--only-presets", "--preset"]),
        ([], ["THUMBCACHE_ONLY_PRESETS": "1"], ["--only-presets", "--preset"]),
        (["--only-presets", "--preset", "card=w:10", "--demo"], [:], ["--demo", "--only-presets"]),
        (["--only-presets", "--preset", "card=w:10", "--client-hints"], [:], ["--client-hints", "--only-presets"]),
    ]

    @Test(arguments: conflicts)
    func conflictingFlagsAreAUsageError(_ arguments: [String], _ environment: [String: String], _ named: [String]) throws {
        let run = try Self.run(arguments, environment)
        #expect(run.status == 64, "\(arguments) \(environment): \(run.status) \(run.stderr)")
        for word in named { #expect(run.stderr.contains(word), "\(word) in: \(run.stderr)") }
        #expect(!run.stderr.contains("serving on"), "refused before anything binds: \(run.stderr)")
    }

    /// What looks like a conflict and is not: 0 picks a free port for each, distinct ports are fine, and presets
    /// from the variable satisfy --only-presets.
    @Test func pairsThatDoNotConflictAreAccepted() throws {
        #expect(try Self.run(["--port", "0", "--metrics-port", "0"]).status == 8)
        #expect(try Self.run(["--port", "9314", "--metrics-port", "9315"]).status == 8)
        #expect(try Self.run(["--min-ttl", "60", "--max-ttl", "60"]).status == 8)
        #expect(try Self.run(["--only-presets"], ["THUMBCACHE_PRESETS": "card=rs:fill:300:200"]).status == 8)
    }

    /// Issue 33: the help's first lines say that imgproxy's processing URLs are served, and where they are described.
    @Test func helpNamesProcessingURLsFirst() throws {
        let run = try ServeProcess.run(["serve", "--help"])
        #expect(run.status == 0)
        let lines = String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").prefix(6).joined(separator: " ")
        #expect(lines.contains("imgproxy's processing URLs"), "\(lines)")
        #expect(lines.contains("docs/serve.md#processing-urls-imgproxys-grammar"), "\(lines)")
    }

    /// Rotated keys: `--key`/`--salt` repeated in pairs, or comma lists in the variables; a salt count that does
    /// not match, a bad key and a bad preset are usage errors naming what to fix.
    @Test func keyPairsAndPresetsAreCheckedAtStart() throws {
        let (a, b) = (String(repeating: "ab", count: 16), String(repeating: "cd", count: 16))
        #expect(try Self.run(["--key", a, "--salt", "01", "--key", b, "--salt", "02"]).status == 8)
        #expect(try Self.run([], ["THUMBCACHE_KEY": "\(a),\(b)", "THUMBCACHE_SALT": "01,02"]).status == 8)
        #expect(try Self.run(["--key", a, "--key", b]).status == 8, "no salts at all is fine")
        let mismatched = try Self.run(["--key", a, "--salt", "01", "--key", b])
        #expect(mismatched.status == 64 && mismatched.stderr.contains("one salt per key"), "\(mismatched.stderr)")
        let badSecond = try Self.run(["--key", a, "--key", "xyz"])
        #expect(badSecond.status == 64 && badSecond.stderr.contains("--key xyz"), "\(badSecond.stderr)")
        #expect(try Self.run(["--preset", "card=rs:fill:300:200/g:sm", "--only-presets"]).status == 8)
        #expect(try Self.run([], ["THUMBCACHE_PRESETS": "card=rs:fill:300:200,default=q:70"]).status == 8)
        let badPreset = try Self.run(["--preset", "card=bogus:1"])
        #expect(badPreset.status == 64 && badPreset.stderr.contains("bogus"), "\(badPreset.stderr)")
    }

    /// Every usual spelling of a boolean variable, in any case; anything else is refused. Read through
    /// THUMBCACHE_ALLOW_UNSIGNED on a public address: true gets past the unsigned-bind refusal (to the cache
    /// directory, exit 8), false meets it (64).
    @Test(arguments: ["1", "true", "TRUE", "yes", "Yes", "on", "ON"])
    func trueSpellings(_ value: String) throws {
        let run = try Self.run(["--host", "0.0.0.0"], ["THUMBCACHE_ALLOW_UNSIGNED": value])
        #expect(run.status == 8, "\(value): \(run.status) \(run.stderr)")
    }

    @Test(arguments: ["0", "false", "False", "no", "NO", "off", "Off"])
    func falseSpellings(_ value: String) throws {
        let run = try Self.run(["--host", "0.0.0.0"], ["THUMBCACHE_ALLOW_UNSIGNED": value])
        #expect(run.status == 64 && run.stderr.contains("--allow-unsigned"), "\(value): \(run.status) \(run.stderr)")
    }

    @Test(arguments: ["THUMBCACHE_ALLOW_LOOPBACK_SOURCES", "THUMBCACHE_ALLOW_PRIVATE_SOURCES", "THUMBCACHE_DEMO",
                      "THUMBCACHE_ALLOW_UNSIGNED", "THUMBCACHE_DEBUG_REFUSALS"])
    func anUnknownBooleanSpellingIsRefused(_ name: String) throws {
        let run = try Self.run([], [name: "enabled"])
        #expect(run.status == 64 && run.stderr.contains("\(name)=enabled") && run.stderr.contains("on/off"), "\(run.stderr)")
    }

    /// A prefix that is not an http(s) URL would refuse every source: refused at start, named.
    @Test(arguments: ["junk", "ftp://img.example.com/", "file:///srv/images/", "https://"])
    func anAllowSourceThatIsNotAURLPrefixIsRefused(_ prefix: String) throws {
        let flag = try Self.run(["--allow-source", "https://ok.example.com/", "--allow-source", prefix])
        #expect(flag.status == 64 && flag.stderr.contains("--allow-source \(prefix)"), "\(flag.stderr)")
        let variable = try Self.run([], ["THUMBCACHE_ALLOW_SOURCE": "https://ok.example.com/,\(prefix)"])
        #expect(variable.status == 64 && variable.stderr.contains("THUMBCACHE_ALLOW_SOURCE") && variable.stderr.contains(prefix),
                "\(variable.stderr)")
    }

    /// A restriction or a secret set to nothing must not mean "none": an allow-list of separators would allow
    /// every source, an empty key an unsigned server (the hostile re-run found both starting).
    @Test(arguments: [("THUMBCACHE_ALLOW_SOURCE", ","), ("THUMBCACHE_ALLOW_SOURCE", "   "), ("THUMBCACHE_ALLOW_SOURCE", ""),
                      ("THUMBCACHE_KEY", ""), ("THUMBCACHE_SALT", ""), ("THUMBCACHE_ADMIN_TOKEN", "")])
    func aVariableSetToNothingIsRefused(name: String, value: String) throws {
        let run = try Self.run([], [name: value])
        #expect(run.status == 64 && run.stderr.contains(name), "\(name)=\"\(value)\": \(run.status) \(run.stderr)")
    }

    /// `--format-quality` and `THUMBCACHE_FORMAT_QUALITY` (imgproxy's `jpeg=80,avif=60`): a bad item is a usage
    /// error naming it and where it came from.
    @Test func formatQualityIsCheckedAtStart() throws {
        #expect(try Self.run(["--format-quality", "avif=60,webp=75", "--format-quality", "jpeg=85"]).status == 8)
        #expect(try Self.run([], ["THUMBCACHE_FORMAT_QUALITY": "jpeg=80,avif=60"]).status == 8)
        let badFlag = try Self.run(["--format-quality", "avif=60,webp=0"])
        #expect(badFlag.status == 64 && badFlag.stderr.contains("--format-quality") && badFlag.stderr.contains("webp=0"), "\(badFlag.stderr)")
        let badVariable = try Self.run([], ["THUMBCACHE_FORMAT_QUALITY": "jpeg=80,png"])
        #expect(badVariable.status == 64 && badVariable.stderr.contains("THUMBCACHE_FORMAT_QUALITY item png"), "\(badVariable.stderr)")
        let unknown = try Self.run(["--format-quality", "svg=50"])
        #expect(unknown.status == 64 && unknown.stderr.contains("svg=50"), "\(unknown.stderr)")
    }
}
