/// librsvg 2.54 lays out one run of text in time that grows with the square of its length: 5,000 characters in one
/// `<text>` took 1 s of CPU here, 20,000 took 26 s (and 200,000 did not finish in 5 minutes), while the same
/// characters split over many elements take milliseconds. A render cannot be stopped once begun (librsvg 2.54 has
/// no render cancellation), so a document whose text would cost more than `maxCost` — the sum over its text runs
/// of the square of each run's length in bytes, entities expanded — is refused before librsvg reads it. The budget
/// is about 5,600 bytes in one run (about a second of one core), far more than labels and captions hold. One pass
/// over the bytes, no tree: every decoder open (probe, estimate, render) pays it.
enum SVGTextBudget {
    static let maxCost = 32_000_000
    /// Elements whose character data librsvg lays out as text.
    static let textElements: Set<[UInt8]> = Set(["text", "tspan", "textPath", "tref", "altGlyph"].map { Array($0.utf8) })

    static func check(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodeError) {
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
            guard index + length <= count else { return false }
            for offset in 0..<length where bytes[index + offset] != text.utf8Start[offset] { return false }
            return true
        }
        func skip(past terminator: StaticString) {
            let length = terminator.utf8CodeUnitCount
            var at = index
            while at + length <= count {
                var matches = true
                for offset in 0..<length where bytes[at + offset] != terminator.utf8Start[offset] { matches = false; break }
                if matches { index = at + length; return }
                at += 1
            }
            index = count
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
                let nameStart = index
                while index < count, ![0x20, 0x09, 0x0A, 0x0D, 0x3E, 0x2F].contains(bytes[index]) { index += 1 }
                var name = Array(bytes[nameStart..<index])
                if let colon = name.lastIndex(of: UInt8(ascii: ":")) { name = Array(name[(colon + 1)...]) }
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
                if textElements.contains(name) {
                    if closing { depth = max(0, depth - 1) } else if !selfClosing { depth += 1 }
                }
            } else if byte == UInt8(ascii: "&"), depth > 0, !entities.isEmpty,
                      let semicolon = (index + 1..<min(count, index + 256)).first(where: { bytes[$0] == UInt8(ascii: ";") }),
                      let length = entities[Array(bytes[(index + 1)..<semicolon])] {
                run += length
                index = semicolon + 1
            } else {
                if depth > 0 { run += 1 }
                index += 1
            }
        }
        flush()
        guard cost <= maxCost else {
            throw .unsupported("the SVG's text runs are too long to lay out in bounded time (cost \(cost), limit \(maxCost): "
                               + "about \(Int(Double(maxCost).squareRoot())) characters in one run); split long text over several elements")
        }
    }

    /// The expanded length of each entity the doctype declares (references in values expanded, three levels deep,
    /// each length capped), keyed by name; empty when none is declared.
    static func entityLengths(_ bytes: UnsafeRawBufferPointer) -> [[UInt8]: Int] {
        guard let marker = Array("<!ENTITY".utf8).first, bytes.contains(marker),
              bytes.firstRange(of: Array("<!ENTITY".utf8)) != nil else { return [:] }
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
