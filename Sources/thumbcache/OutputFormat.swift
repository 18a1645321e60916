import ArgumentParser
import Foundation
import ImageDecode

/// The one place that decides which format an output is written in, from `--format` and the extension of
/// `-o` (`get`, `thumbnail`): `-o small.png` means PNG. An extension naming a format thumbcache cannot write
/// (`-o x.jp2`) is a usage error rather than a JPEG under that name. The formats follow `ImageFormat.isAskable`:
/// the ones encoded, and SVG, written only by passing an SVG source through.
enum OutputFormat {
    /// The formats thumbcache writes, with the extensions that ask for them.
    static let written: [(format: ImageFormat, extensions: [String])] = ImageFormat.askable.map { ($0, $0.fileExtensions) }

    /// Image formats a user may name in `-o` that are never written (read-only formats, and JPEG 2000).
    static let unwritable: Set<String> = Set(ImageFormat.allCases.filter { !$0.isAskable }.flatMap(\.fileExtensions) + ["jp2"])

    /// "jpeg (.jpg, .jpeg), png (.png), webp (.webp) or avif (.avif)"
    static var writtenList: String {
        let names = written.map { "\($0.format.rawValue) (\($0.extensions.map { "." + $0 }.joined(separator: ", ")))" }
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    /// The format to write: `format` if given, else the one `output`'s extension names, else nil (the
    /// default: JPEG, or PNG for a source with transparency). `-` (standard output) and names without an image
    /// extension (`/dev/null`, `thumb.bin`) name none.
    static func resolve(output: String?, format: ImageFormat?) throws(ValidationError) -> ImageFormat? {
        if let format, !written.contains(where: { $0.format == format }) {
            throw ValidationError("cannot write \(format.rawValue): thumbcache writes \(writtenList)")
        }
        guard let output, output != "-" else { return format }
        let suffix = URL(fileURLWithPath: output).pathExtension.lowercased()
        if unwritable.contains(suffix) {
            throw ValidationError("cannot write \(suffix) (-o \(output)): thumbcache writes \(writtenList)")
        }
        guard let named = written.first(where: { $0.extensions.contains(suffix) })?.format else { return format }
        if let format, format != named {
            throw ValidationError("-o \(output) names \(named.rawValue) but --format is \(format.rawValue)")
        }
        return named
    }
}
