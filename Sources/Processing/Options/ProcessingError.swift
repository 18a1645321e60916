/// Why a processing URL or a preset was refused; every message names what to change.
public enum ProcessingError: Error, Equatable, CustomStringConvertible {
    /// Not an imgproxy option name at all.
    case unknownOption(String)
    /// The option exists but an argument does not parse or is out of range.
    case badArgument(option: String, argument: String, expected: String)
    /// One of imgproxy's options (watermarks, trim, video, pro-only) that thumbcache does not implement.
    case notSupported(option: String)
    /// The server accepts presets only, and the URL holds another option.
    case onlyPresets(option: String)
    /// The server allows some options only in URLs (`--allowed-processing-options`), and the URL holds another.
    case forbiddenOption(String)
    /// The server accepts presets only, and the URL names none (or an empty name).
    case noPreset
    case unknownPreset(String)
    /// A preset definition (configuration, not URL) that cannot be used.
    case badPreset(definition: String, reason: String)
    /// The path's shape or its source segment is wrong.
    case badPath(String)
    /// The `expires` time has passed (imgproxy answers 404).
    case expired(at: Int64)
    /// The result would be larger than the server allows; found before anything is rendered.
    case resultTooLarge(width: Int, height: Int, limit: Int)
    /// A smart or entropy gravity must look at the whole scaled image, and `min-width`/`min-height` scale it past
    /// the limit though the result itself is small; found before anything is rendered.
    case scaledTooLarge(width: Int, height: Int, limit: Int)
    /// The filters and detectors would do more work than the server allows (`RenderWork`), mostly for `option`;
    /// found from the header, before anything is rendered.
    case tooCostly(option: String, work: Int, limit: Int, width: Int, height: Int)

    public var description: String {
        switch self {
        case let .unknownOption(name):
            "unknown processing option \"\(name.prefix(40))\": see docs/processing.md for the options thumbcache understands"
        case let .badArgument(option, argument, expected):
            "bad argument \"\(argument.prefix(40))\" for option \(option): expected \(expected)"
        case let .notSupported(option):
            "imgproxy's option \"\(option)\" is not supported by thumbcache (docs/processing.md lists what is); remove it from the URL"
        case let .onlyPresets(option):
            "this server accepts presets only (pr:NAME), remove option \"\(option.prefix(40))\" from the URL"
        case let .forbiddenOption(name):
            "option \"\(name.prefix(40))\" is not among this server's --allowed-processing-options: remove it from the URL, or use a preset that sets it"
        case .noPreset:
            "this server accepts presets only: name one or more configured presets, /<signature>/NAME[:NAME]/<source> or pr:NAME (an empty name is none)"
        case let .unknownPreset(name):
            "unknown preset \"\(name.prefix(40))\": define it with --preset \(name.prefix(40))=OPTIONS or use a configured one"
        case let .badPreset(definition, reason):
            "preset \"\(definition.prefix(80))\" cannot be used: \(reason); write it as NAME=option:arg/option:arg"
        case let .badPath(reason):
            "bad processing path: \(reason)"
        case let .expired(time):
            "this URL expired at unix time \(time): ask for a newly signed one"
        case let .resultTooLarge(width, height, limit):
            "the result would be \(width)×\(height) pixels, over this server's limit of \(limit) per side: ask for a smaller size, dpr or zoom"
        case let .tooCostly(option, work, limit, width, height):
            "\(option) on a \(width)×\(height) result would take about \(Self.billions(work)) billion operations, over this "
                + "server's limit of \(Self.billions(limit)) billion for one image's effects: "
                + (option == "gravity" ? "use another gravity" : "lower the \(option) argument") + " or ask for a smaller size"
        case let .scaledTooLarge(width, height, limit):
            "a smart or entropy gravity would search an image scaled to \(width)×\(height) pixels, over this server's limit of \(limit) per side: lower min-width/min-height or use another gravity"
        }
    }

    /// `34.2`: one decimal, as the limit is documented.
    static func billions(_ operations: Int) -> String {
        String((Double(operations) / 1e8).rounded() / 10)
    }
}
