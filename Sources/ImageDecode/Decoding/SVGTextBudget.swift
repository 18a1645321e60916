import Foundation

/// librsvg 2.54 lays out one run of text in time that grows with the square of its length: 5,000 characters in one
/// `<text>` took 1 s of CPU here, 20,000 took 26 s (and 200,000 did not finish in 5 minutes), while the same
/// characters split over many elements take milliseconds. A render cannot be stopped once begun (librsvg 2.54 has
/// no render cancellation), so a document whose text would cost more than `maxCost` — the sum over its text runs
/// of the square of each run's length in bytes, entities expanded — is refused before librsvg reads it. The budget
/// is about 5,600 bytes in one run (about a second of one core), far more than labels and captions hold. One pass
/// over the bytes, no tree, no allocation per tag: outside text it jumps from `<` to `<` with `memchr`, since it
/// runs before every parse (a 20,000-shape drawing spent a fifth of its thumbnail here when it searched byte by
/// byte with generic collection code; docs/benchmarks.md, "SVG's text budget").
enum SVGTextBudget {
    static let maxCost = 32_000_000
    /// Elements whose character data librsvg lays out as text (local names, any prefix).
    static let textElements: [StaticString] = ["text", "tspan", "textPath", "tref", "altGlyph"]

    static func check(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodeError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        let entities = entityLengths(bytes)
        var cost = 0, run = 0, depth = 0, index = 0
        let count = bytes.count
        func flush() {
            let length = min(run, 1 << 24)
            cost = min(cost + length * length, Int.max / 2)
            run = 0
        }
        func starts(_ text: StaticString) -> Bool {
            let length = text.utf8CodeUnitCount
            return index + length <= count && memcmp(base + index, text.utf8Start, length) == 0
        }
        func skip(past terminator: StaticString) {
            let found = find(terminator, in: bytes, from: index)
            index = found.map { $0 + terminator.utf8CodeUnitCount } ?? count
        }
        while index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<") {
                if starts("<!--") { skip(past: "-->"); continue }
                if starts("<![CDATA[") {
                    let start = index
                    skip(past: "]]>")
                    if depth > 0 { run += index - start }
                    continue
                }
                if starts("<?") { skip(past: "?>"); continue }
                if starts("<!") { skip(past: ">"); continue }
                // A tag: its name, then its end outside quoted values.
                flush()
                index += 1
                let closing = index < count && bytes[index] == UInt8(ascii: "/")
                if closing { index += 1 }
                var nameStart = index
                while index < count {
                    switch bytes[index] {
                    case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/"): break
                    case UInt8(ascii: ":"): nameStart = index + 1; index += 1; continue
                    default: index += 1; continue
                    }
                    break
                }
                let isText = isTextElement(UnsafeRawBufferPointer(rebasing: bytes[nameStart..<index]))
                var quote: UInt8?
                var previous: UInt8 = 0
                while index < count {
                    let current = bytes[index]
                    if let open = quote { if current == open { quote = nil } }
                    else if current == UInt8(ascii: "\"") || current == UInt8(ascii: "'") { quote = current }
                    else if current == UInt8(ascii: ">") { break }
                    previous = current
                    index += 1
                }
                let selfClosing = previous == UInt8(ascii: "/")
                index += 1
                if isText {
                    if closing { depth = max(0, depth - 1) } else if !selfClosing { depth += 1 }
                }
            } else if depth == 0 {
                // Character data outside text costs nothing: on to the next tag.
                index = memchr(base + index, Int32(UInt8(ascii: "<")), count - index).map { UnsafeRawPointer($0) - base } ?? count
            } else if byte == UInt8(ascii: "&"), !entities.isEmpty,
                      let semicolon = (index + 1..<min(count, index + 256)).first(where: { bytes[$0] == UInt8(ascii: ";") }),
                      let length = entities[Array(bytes[(index + 1)..<semicolon])] {
                run += length
                index = semicolon + 1
            } else {
                run += 1
                index += 1
            }
        }
        flush()
        guard cost <= maxCost else {
            throw .unsupported("the SVG's text runs are too long to lay out in bounded time (cost \(cost), limit \(maxCost): "
                               + "about \(Int(Double(maxCost).squareRoot())) characters in one run); split long text over several elements")
        }
    }

    static func isTextElement(_ name: UnsafeRawBufferPointer) -> Bool {
        textElements.contains { element in
            element.utf8CodeUnitCount == name.count && memcmp(name.baseAddress!, element.utf8Start, name.count) == 0
        }
    }

    /// The offset of the first `needle` in `bytes` at or after `start`, if any: `memchr` to each candidate first byte,
    /// then `memcmp` (Swift's Glibc module does not export `memmem`).
    static func find(_ needle: StaticString, in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let length = needle.utf8CodeUnitCount, first = Int32(needle.utf8Start.pointee)
        var at = start
        while at + length <= bytes.count {
            guard let hit = memchr(base + at, first, bytes.count - length + 1 - at) else { return nil }
            at = UnsafeRawPointer(hit) - base
            if memcmp(hit, needle.utf8Start, length) == 0 { return at }
            at += 1
        }
        return nil
    }

    /// The expanded length of each entity the doctype declares (references in values expanded, three levels deep,
    /// each length capped), keyed by name; empty when none is declared.
    static func entityLengths(_ bytes: UnsafeRawBufferPointer) -> [[UInt8]: Int] {
        guard find("<!ENTITY", in: bytes, from: 0) != nil else { return [:] }
        let values = SVGSanitizer.Parser.entities(in: ArraySlice(bytes))
        func length(_ value: [UInt8], depth: Int) -> Int {
            guard depth < 3, value.contains(UInt8(ascii: "&")) else { return value.count }
            var total = value.count
            for (name, inner) in values {
                let reference = Array("&\(name);".utf8)
                var rest = value[...]
                while let range = rest.firstRange(of: reference) {
                    total += length(inner, depth: depth + 1) - reference.count
                    rest = rest[range.upperBound...]
                }
            }
            return min(total, 1 << 24)
        }
        var lengths = [[UInt8]: Int]()
        for (name, value) in values { lengths[Array(name.utf8)] = length(value, depth: 0) }
        return lengths
    }
}
