/// librsvg 2.54 lays out one run of text in time that grows with the square of its length: 5,000 characters in one
/// `<text>` took 1 s of CPU here, 20,000 took 26 s (and 200,000 did not finish in 5 minutes), while the same
/// characters split over many elements take milliseconds. A render cannot be stopped once begun (librsvg 2.54 has
/// no render cancellation), so a document whose text would cost more than `maxCost` — the sum over its text runs
/// of the square of each run's length in bytes, entities expanded — is refused before librsvg reads it. The budget
/// is about 5,600 bytes in one run (about a second of one core), far more than labels and captions hold.
enum SVGTextBudget {
    static let maxCost = 32_000_000
    /// Elements whose character data librsvg lays out as text.
    static let textElements: Set<String> = ["text", "tspan", "textPath", "tref", "a", "altGlyph"]

    static func check(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodeError) {
        var parser = SVGSanitizer.Parser(bytes: Array(bytes), sanitizing: false)
        var cost = 0
        if let nodes = try? parser.document() {
            for node in nodes { cost = add(node, insideText: false, to: cost) }
        } else {
            // Not read by our parser (libxml2 may still take it): every run of character data counts.
            var run = 0
            for byte in bytes {
                if byte == UInt8(ascii: "<") { cost += run * run; run = 0 } else { run += 1 }
            }
            cost += run * run
        }
        guard cost <= maxCost else {
            throw .unsupported("the SVG's text runs are too long to lay out in bounded time (cost \(cost), limit \(maxCost): "
                               + "about \(Int(Double(maxCost).squareRoot())) characters in one run); split long text over several elements")
        }
    }

    /// `cost` plus the squares of the text runs in `node`.
    private static func add(_ node: SVGSanitizer.Node, insideText: Bool, to cost: Int) -> Int {
        guard case .element(let name, _, let children) = node else { return cost }
        let inside = insideText || textElements.contains(String(name.split(separator: ":").last ?? Substring(name)))
        var cost = cost, run = 0
        for child in children {
            switch child {
            case .raw(let text):
                // Comments and processing instructions are not laid out; text and CDATA are.
                guard inside, !text.starts(with: Array("<!--".utf8)), !text.starts(with: Array("<?".utf8)) else { continue }
                run += text.count
            case .element:
                cost = cost.addingReportingOverflow(run.multipliedReportingOverflow(by: run).partialValue).partialValue
                run = 0
                cost = add(child, insideText: inside, to: cost)
            }
        }
        return cost + run * run
    }
}
