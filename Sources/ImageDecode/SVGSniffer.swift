/// Recognises an SVG document from its first bytes: after an optional byte-order mark and white space, any XML
/// declaration, processing instructions, comments and doctype, the first element is `svg` (with or without a
/// namespace prefix). Text formats have no magic number; this is what imgproxy and libvips look for too.
enum SVGSniffer {
    static func isSVG(_ head: [UInt8]) -> Bool {
        var index = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func skipSpace() { while index < head.count, [0x20, 0x09, 0x0A, 0x0D].contains(head[index]) { index += 1 } }
        func starts(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            return index + bytes.count <= head.count && Array(head[index..<index + bytes.count]) == bytes
        }
        func skip(past terminator: String) -> Bool {
            let bytes = Array(terminator.utf8)
            var at = index
            while at + bytes.count <= head.count {
                if Array(head[at..<at + bytes.count]) == bytes { index = at + bytes.count; return true }
                at += 1
            }
            return false
        }
        while true {
            skipSpace()
            if starts("<?") { guard skip(past: "?>") else { return false }; continue }
            if starts("<!--") { guard skip(past: "-->") else { return false }; continue }
            if starts("<!DOCTYPE") || starts("<!doctype") { guard skip(past: ">") else { return false }; continue }
            guard starts("<") else { return false }
            index += 1
            // The element name, with an optional prefix: `svg` or `x:svg`.
            var name = [UInt8]()
            while index < head.count, ![0x20, 0x09, 0x0A, 0x0D, 0x3E, 0x2F].contains(head[index]) {
                name.append(head[index]); index += 1
            }
            let local = name.split(separator: 0x3A).last.map(Array.init) ?? []
            return local == Array("svg".utf8)
        }
    }
}
