import ArgumentParser

/// A byte size on the command line: `1500000`, `50MB`, `1.5GB`, `512MiB`. KB, MB, GB and TB are powers of
/// 1000 (SI, as disk makers and `ls --si` count), KiB, MiB, GiB and TiB powers of 1024; a bare number or `B`
/// is bytes; units are case-insensitive and a fraction rounds down to whole bytes. Parsed with exact
/// integer arithmetic: no value can overflow or trap, and anything from 1 byte to `Int64.max` is accepted.
struct ByteCount: ExpressibleByArgument, Sendable, Equatable, CustomStringConvertible {
    /// Why a value is refused; follows "The value 'x' is invalid for '--option <size>': " in the message.
    enum ParseError: Error, CustomStringConvertible {
        case notASize
        case tooLarge
        case belowOneByte

        var description: String {
            switch self {
            case .notASize: "expected a number and an optional unit: B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024)"
            case .tooLarge: "more than \(Int64.max) bytes"
            case .belowOneByte: "less than 1 byte"
            }
        }
    }

    static let help = "Sizes: KB, MB, GB, TB = powers of 1000; KiB, MiB, GiB, TiB = powers of 1024."

    /// The help of a size option: its abstract, what else it needs to say, then how sizes are written.
    static func optionHelp(_ abstract: String, discussion: String) -> ArgumentHelp {
        ArgumentHelp(abstract, discussion: discussion + " " + help, valueName: "size")
    }

    private static let units: [(suffix: String, factor: UInt64)] = [
        ("KIB", 1 << 10), ("MIB", 1 << 20), ("GIB", 1 << 30), ("TIB", 1 << 40),
        ("KB", 1_000), ("MB", 1_000_000), ("GB", 1_000_000_000), ("TB", 1_000_000_000_000), ("B", 1),
    ]

    var bytes: Int64

    init(bytes: Int64) { self.bytes = bytes }

    init(parsing argument: String) throws(ParseError) {
        let text = argument.uppercased().filter { $0 != " " }
        let unit = Self.units.first { text.hasSuffix($0.suffix) } ?? ("", 1)
        let number = text.dropLast(unit.suffix.count)
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard !number.isEmpty, number != ".", parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }) else {
            throw .notASize
        }
        // Whole part times the factor, checked; the fraction (18 digits are more than any factor needs)
        // times the factor over its power of ten, in double width so it cannot overflow.
        var whole: UInt64 = 0
        for digit in parts[0] {
            let step = whole.multipliedReportingOverflow(by: 10)
            let next = step.partialValue.addingReportingOverflow(UInt64(digit.asciiValue ?? 48) - 48)
            guard !step.overflow, !next.overflow else { throw .tooLarge }
            whole = next.partialValue
        }
        var fraction: UInt64 = 0, scale: UInt64 = 1
        for digit in (parts.count > 1 ? parts[1] : "").prefix(18) {
            fraction = fraction * 10 + UInt64(digit.asciiValue ?? 48) - 48
            scale *= 10
        }
        let wholeBytes = whole.multipliedReportingOverflow(by: unit.factor)
        let fractionBytes = scale.dividingFullWidth(fraction.multipliedFullWidth(by: unit.factor)).quotient
        let total = wholeBytes.partialValue.addingReportingOverflow(fractionBytes)
        guard !wholeBytes.overflow, !total.overflow, let bytes = Int64(exactly: total.partialValue) else { throw .tooLarge }
        guard bytes >= 1 else { throw .belowOneByte }
        self.bytes = bytes
    }

    init?(argument: String) {
        guard let parsed = try? ByteCount(parsing: argument) else { return nil }
        self = parsed
    }

    /// The shortest exact spelling: `512MiB`, `50MB`, `1234B`.
    var description: String {
        guard let value = UInt64(exactly: bytes) else { return "\(bytes)B" }
        for (suffix, factor) in Self.units.reversed().dropFirst() {
            let (quotient, remainder) = value.quotientAndRemainder(dividingBy: factor)
            if remainder == 0 && quotient > 0 {
                return "\(quotient)\(suffix.replacingOccurrences(of: "I", with: "i"))"
            }
        }
        return "\(bytes)B"
    }

    /// For reading, not for options: the exact spelling when there is one with a unit (`512MiB`), else one
    /// decimal of the largest binary unit it reaches (`8.8KiB`, `1.2GiB`); under 1 KiB, bytes (`900B`).
    var approximateDescription: String {
        let exact = description
        guard exact.hasSuffix("B"), exact.dropLast().allSatisfy(\.isNumber), bytes >= 1 << 10 else { return exact }
        let (suffix, factor) = Self.units.filter { $0.suffix.hasSuffix("IB") }.last { bytes >= $0.factor } ?? ("KIB", 1 << 10)
        return String(format: "%.1f", Double(bytes) / Double(factor)) + suffix.replacingOccurrences(of: "I", with: "i")
    }

    var defaultValueDescription: String { description }
}
