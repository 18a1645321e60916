import Foundation

/// How vectors write byte values: UTF-8 text, or `hex:` followed by hex digits for arbitrary bytes.
enum ValueText {
    static func decode(_ text: String, field: String) throws(StepFields.Failure) -> Data {
        guard text.hasPrefix("hex:") else { return Data(text.utf8) }
        guard let data = Hex.decode(String(text.dropFirst(4))) else {
            throw StepFields.Failure("field \"\(field)\": invalid hex in \"\(text)\"")
        }
        return data
    }

    static func encode(_ data: Data) -> String {
        if let s = String(data: data, encoding: .utf8), !s.hasPrefix("hex:") { return s }
        return "hex:" + Hex.encode(data)
    }
}
