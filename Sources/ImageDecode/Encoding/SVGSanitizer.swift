import Foundation

/// What an SVG answered as SVG (passed through, never drawn) is cleaned of, as imgproxy's `IMGPROXY_SANITIZE_SVG`
/// (on by default) does: `<script>`, `<iframe>` and `<form>` elements with their content, every `on…` event
/// attribute, a `<use>` href other than a fragment (`#id`), an `<image>` href other than http(s), data: or relative,
/// and any other href other than http(s) or relative. Stricter than imgproxy where it leaves a way to run script:
/// tabs and newlines inside a scheme (`java&#9;script:`) are removed before the scheme is read, as browsers do;
/// `<animate>`/`<set>` that change an href are removed; entities declared in the doctype are expanded once, into
/// the text before it is read, and the doctype's internal subset dropped, so no entity hides markup (or a
/// billion-laughs expansion) from the rules. The output is the input's own text with only these parts cut:
/// an element whose content was all removed is written self-closed, attributes with double quotes.
public enum SVGSanitizer {
    /// Raised whenever what is cut changes: stored sanitised SVGs carry it in their variant name, so documents
    /// cleaned by an older sanitiser are cleaned again rather than served.
    public static let version = 1
    /// The expanded document may be at most this much larger than the input (and never above `maxExpandedBytes`).
    static let maxExpansion = 4
    static let maxExpandedBytes = 64 << 20
    /// Elements nest at most this deep (libxml2's default limit is 256).
    static let maxDepth = 256

    /// The sanitised document; `.corrupt` when it is not well-formed XML (imgproxy: "Broken or unsupported SVG").
    public static func sanitize(_ data: Data) throws(ImageDecodeError) -> Data {
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var parser = Parser(bytes: bytes)
        let nodes = try parser.document()
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        for node in nodes { write(node, to: &out) }
        return Data(out)
    }

    // MARK: The tree

    indirect enum Node {
        /// Text, a comment, CDATA, a processing instruction or a doctype: written as read.
        case raw(ArraySlice<UInt8>)
        case element(name: String, attributes: [Attribute], children: [Node])
    }

    struct Attribute {
        let name: String
        /// As written between its quotes (entities unexpanded).
        let value: String
        var localName: Substring { name.split(separator: ":").last ?? Substring(name) }
    }

    private static func write(_ node: Node, to out: inout [UInt8]) {
        switch node {
        case .raw(let text):
            out.append(contentsOf: text)
        case .element(let name, let attributes, let children):
            out.append(UInt8(ascii: "<"))
            out.append(contentsOf: name.utf8)
            for attribute in attributes {
                out.append(UInt8(ascii: " "))
                out.append(contentsOf: attribute.name.utf8)
                out.append(contentsOf: "=\"".utf8)
                out.append(contentsOf: attribute.value.replacingOccurrences(of: "\"", with: "&quot;").utf8)
                out.append(UInt8(ascii: "\""))
            }
            if children.isEmpty {
                out.append(contentsOf: "/>".utf8)
                return
            }
            out.append(UInt8(ascii: ">"))
            for child in children { write(child, to: &out) }
            out.append(contentsOf: "</".utf8)
            out.append(contentsOf: name.utf8)
            out.append(UInt8(ascii: ">"))
        }
    }

    // MARK: The rules

    /// Elements removed with everything in them.
    static let removedElements: Set<String> = ["script", "iframe", "form"]
    /// Elements that animate an attribute: removed when the attribute is an href (it could be set to `javascript:`).
    static let animations: Set<String> = ["animate", "set", "animateMotion", "animateTransform"]

    /// The element with the rules applied; nil: removed.
    static func kept(name: String, attributes: [Attribute]) -> [Attribute]? {
        let local = String(name.split(separator: ":").last ?? Substring(name))
        if removedElements.contains(local.lowercased()) { return nil }
        if animations.contains(local),
           attributes.contains(where: { $0.localName == "attributeName" && $0.value.split(separator: ":").last == "href" }) {
            return nil
        }
        return attributes.filter { attribute in
            let name = attribute.localName
            if name.lowercased().hasPrefix("on") { return false }
            guard name == "href" else { return true }
            switch local {
            case "use": return attribute.value.isEmpty || attribute.value.hasPrefix("#")
            case "image": return isSafe(href: attribute.value, schemes: ["http", "https", "data"])
            default: return isSafe(href: attribute.value, schemes: ["http", "https"])
            }
        }
    }

    /// Empty, a fragment, relative, or with one of `schemes`, once character references are decoded and the
    /// characters a browser ignores in a URL (tabs, newlines, leading spaces and controls) are dropped.
    static func isSafe(href: String, schemes: Set<String>) -> Bool {
        let decoded = decodeReferences(href).unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }
        let text = String(String.UnicodeScalarView(decoded.drop(while: { $0.value <= 0x20 })))
        // A scheme is a letter, then letters, digits, `+`, `.` or `-`, then a colon; anything else is relative.
        let scalars = Array(text.unicodeScalars)
        func schemeCharacter(_ scalar: Unicode.Scalar) -> Bool {
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "+.-".unicodeScalars.contains(scalar))
        }
        guard let first = scalars.first, first.isASCII, first.properties.isAlphabetic else { return true }
        var end = 1
        while end < scalars.count, schemeCharacter(scalars[end]) { end += 1 }
        guard end < scalars.count, scalars[end] == ":" else { return true }
        return schemes.contains(String(String.UnicodeScalarView(scalars[..<end])).lowercased())
    }

    /// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;` and numeric references decoded; others left as written.
    static func decodeReferences(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            guard let semicolon = after.prefix(12).firstIndex(of: ";") else { result += "&"; rest = after; continue }
            let name = after[..<semicolon]
            let named: [Substring: String] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]
            var decoded: String?
            if let value = named[name] {
                decoded = value
            } else if name.hasPrefix("#x") || name.hasPrefix("#X"), let code = UInt32(name.dropFirst(2), radix: 16),
                      let scalar = Unicode.Scalar(code) {
                decoded = String(scalar)
            } else if name.hasPrefix("#"), let code = UInt32(name.dropFirst()), let scalar = Unicode.Scalar(code) {
                decoded = String(scalar)
            }
            if let decoded {
                result += decoded
                rest = after[after.index(after: semicolon)...]
            } else {
                result += "&"
                rest = after
            }
        }
        return result + rest
    }

    // MARK: Reading

    /// A reader of the XML the sanitiser needs: elements, attributes, and everything else kept as text.
    struct Parser {
        var bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        static func broken(_ why: String) -> ImageDecodeError { .corrupt("the SVG is not well-formed XML: \(why)") }

        mutating func document() throws(ImageDecodeError) -> [Node] {
            var stack: [(name: String, attributes: [Attribute]?, children: [Node])] = [("", [], [])]
            var sawRoot = false
            while index < bytes.count {
                if bytes[index] != UInt8(ascii: "<") {
                    let start = index
                    while index < bytes.count, bytes[index] != UInt8(ascii: "<") { index += 1 }
                    stack[stack.count - 1].children.append(.raw(bytes[start..<index]))
                    continue
                }
                if starts("<!--") {
                    try append(through: "-->", to: &stack)
                } else if starts("<![CDATA[") {
                    try append(through: "]]>", to: &stack)
                } else if starts("<?") {
                    try append(through: "?>", to: &stack)
                } else if starts("<!DOCTYPE") || starts("<!doctype") {
                    guard stack.count == 1, !sawRoot else { throw Self.broken("a doctype inside the document") }
                    try doctype(into: &stack[0].children)
                } else if starts("</") {
                    index += 2
                    let name = readName()
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else { throw Self.broken("an unclosed end tag") }
                    index += 1
                    guard stack.count > 1, stack[stack.count - 1].name == name else {
                        throw Self.broken("</\(name.prefix(40))> closes no open element")
                    }
                    let closed = stack.removeLast()
                    if let attributes = closed.attributes {
                        stack[stack.count - 1].children.append(.element(name: closed.name, attributes: attributes,
                                                                        children: closed.children))
                    }
                } else {
                    index += 1
                    let name = readName()
                    guard !name.isEmpty else { throw Self.broken("a `<` that starts no tag") }
                    let (attributes, selfClosing) = try readAttributes()
                    if stack.count == 1 {
                        guard !sawRoot else { throw Self.broken("more than one root element") }
                        sawRoot = true
                    }
                    // Inside a removed element everything is removed: its frame records nil.
                    let kept = stack[stack.count - 1].attributes == nil ? nil : SVGSanitizer.kept(name: name, attributes: attributes)
                    if selfClosing {
                        if let kept { stack[stack.count - 1].children.append(.element(name: name, attributes: kept, children: [])) }
                    } else {
                        guard stack.count <= SVGSanitizer.maxDepth else { throw Self.broken("elements nested over \(SVGSanitizer.maxDepth) deep") }
                        stack.append((name, kept, []))
                    }
                }
            }
            guard stack.count == 1 else { throw Self.broken("<\(stack[stack.count - 1].name.prefix(40))> is never closed") }
            guard sawRoot else { throw Self.broken("no root element") }
            return stack[0].children
        }

        private func starts(_ text: String) -> Bool {
            let pattern = Array(text.utf8)
            return index + pattern.count <= bytes.count && bytes[index..<index + pattern.count].elementsEqual(pattern)
        }

        private mutating func append(through terminator: String,
                                     to stack: inout [(name: String, attributes: [Attribute]?, children: [Node])]) throws(ImageDecodeError) {
            let start = index
            guard let end = find(terminator, from: index) else { throw Self.broken("an unterminated \(terminator) section") }
            index = end + terminator.utf8.count
            stack[stack.count - 1].children.append(.raw(bytes[start..<index]))
        }

        private func find(_ text: String, from start: Int) -> Int? {
            let pattern = Array(text.utf8)
            guard pattern.count <= bytes.count else { return nil }
            var at = start
            while at + pattern.count <= bytes.count {
                if bytes[at] == pattern[0], bytes[at..<at + pattern.count].elementsEqual(pattern) { return at }
                at += 1
            }
            return nil
        }

        /// A doctype without an internal subset is kept; one with a subset has its general entities expanded once
        /// into the rest of the document and is dropped.
        private mutating func doctype(into nodes: inout [Node]) throws(ImageDecodeError) {
            let start = index
            var depth = 0
            var quote: UInt8?
            var subset: Range<Int>?
            var subsetStart = 0
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if let open = quote { if byte == open { quote = nil }; continue }
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = byte
                case UInt8(ascii: "["): depth += 1; if depth == 1 { subsetStart = index }
                case UInt8(ascii: "]"): if depth == 1 { subset = subsetStart..<(index - 1) }; depth -= 1
                case UInt8(ascii: ">") where depth == 0:
                    guard let subset else { nodes.append(.raw(bytes[start..<index])); return }
                    try expand(entities: Self.entities(in: bytes[subset]))
                    return
                default: break
                }
            }
            throw Self.broken("an unterminated doctype")
        }

        /// `<!ENTITY name "value">` declarations (parameter entities and external ones are not expanded).
        static func entities(in subset: ArraySlice<UInt8>) -> [String: [UInt8]] {
            var found = [String: [UInt8]]()
            let text = String(decoding: subset, as: UTF8.self)
            var rest = Substring(text)
            while let range = rest.range(of: "<!ENTITY") {
                rest = rest[range.upperBound...].drop(while: \.isWhitespace)
                guard !rest.hasPrefix("%") else { continue }
                let name = rest.prefix(while: { !$0.isWhitespace })
                rest = rest[name.endIndex...].drop(while: \.isWhitespace)
                guard let quote = rest.first, quote == "\"" || quote == "'" else { continue }
                let body = rest.dropFirst()
                guard let close = body.firstIndex(of: quote) else { break }
                found[String(name)] = Array(body[..<close].utf8)
                rest = body[close...]
            }
            return found
        }

        /// Replaces each `&name;` of a declared entity after the doctype by its value, once, within `maxExpansion`
        /// times the input. An entity whose value names another declared entity is refused: expanded once it would
        /// leave a reference to an entity the output no longer declares (and nested ones are how billion laughs work).
        private mutating func expand(entities: [String: [UInt8]]) throws(ImageDecodeError) {
            guard !entities.isEmpty else { return }
            guard entities.count <= 4096 else { throw ImageDecodeError.corrupt("the SVG declares over 4096 entities") }
            let references = entities.keys.map { Array("&\($0);".utf8) }
            for value in entities.values where value.contains(UInt8(ascii: "&")) {
                for reference in references where value.firstRange(of: reference) != nil {
                    throw ImageDecodeError.corrupt("the SVG's entities refer to other entities (not expanded)")
                }
            }
            let limit = min(SVGSanitizer.maxExpandedBytes, max(1 << 20, bytes.count * SVGSanitizer.maxExpansion))
            var out = [UInt8](bytes[..<index])
            var at = index
            while at < bytes.count {
                let byte = bytes[at]
                if byte == UInt8(ascii: "&"), let semicolon = bytes[at..<min(bytes.count, at + 256)].firstIndex(of: UInt8(ascii: ";")),
                   let value = entities[String(decoding: bytes[(at + 1)..<semicolon], as: UTF8.self)] {
                    out.append(contentsOf: value)
                    at = semicolon + 1
                } else {
                    out.append(byte)
                    at += 1
                }
                guard out.count <= limit else { throw ImageDecodeError.corrupt("the SVG's entities expand past \(limit) bytes") }
            }
            bytes = out
        }

        private mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        private mutating func readName() -> String {
            let start = index
            while index < bytes.count, ![0x20, 0x09, 0x0A, 0x0D, 0x3E, 0x2F, 0x3D, 0x3C].contains(bytes[index]) { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        private mutating func readAttributes() throws(ImageDecodeError) -> (attributes: [Attribute], selfClosing: Bool) {
            var attributes = [Attribute]()
            while true {
                skipSpace()
                guard index < bytes.count else { throw Self.broken("an unclosed tag") }
                if bytes[index] == UInt8(ascii: ">") { index += 1; return (attributes, false) }
                if starts("/>") { index += 2; return (attributes, true) }
                let name = readName()
                guard !name.isEmpty else { throw Self.broken("a stray character in a tag") }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { throw Self.broken("attribute \(name.prefix(40)) has no value") }
                index += 1
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
                    throw Self.broken("attribute \(name.prefix(40)) is not quoted")
                }
                let quote = bytes[index]
                index += 1
                let start = index
                while index < bytes.count, bytes[index] != quote {
                    guard bytes[index] != UInt8(ascii: "<") else { throw Self.broken("a `<` in attribute \(name.prefix(40))") }
                    index += 1
                }
                guard index < bytes.count else { throw Self.broken("attribute \(name.prefix(40)) is never closed") }
                attributes.append(Attribute(name: name, value: String(decoding: bytes[start..<index], as: UTF8.self)))
                index += 1
            }
        }
    }
}
