import Foundation

/// A parsed driver reply line.
enum Reply: Equatable {
    case ok([String])          // `ok` followed by space-separated payload tokens
    case null
    case error(kind: String, message: String)

    init?(_ line: String) {
        let tokens = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        switch tokens.first {
        case "ok": self = .ok(Array(tokens.dropFirst()))
        case "null" where tokens.count == 1: self = .null
        case "error" where tokens.count >= 2: self = .error(kind: tokens[1], message: tokens.dropFirst(2).joined(separator: " "))
        default: return nil
        }
    }

    /// `<length>:<hex>` tokens (get, snapshots) as vector values: text when every recorded length equals the
    /// byte count, else `{"values": [...], "lengths": [...]}` so a mismatch is visible.
    static func values(_ tokens: [String]) -> JSONValue? {
        var values: [JSONValue] = [], lengths: [JSONValue] = [], consistent = true
        for token in tokens {
            let parts = token.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let length = Int64(parts[0]), let data = Hex.decode(String(parts[1])) else { return nil }
            values.append(.string(ValueText.encode(data)))
            lengths.append(.int(length))
            consistent = consistent && length == Int64(data.count)
        }
        return consistent ? .array(values) : .object(["values": .array(values), "lengths": .array(lengths)])
    }

    /// A `snapshots` payload: `key=<len:hex>,<len:hex> ...` in LRU order.
    static func entries(_ tokens: [String]) -> [(key: String, values: JSONValue)]? {
        var result: [(key: String, values: JSONValue)] = []
        for token in tokens {
            guard let eq = token.firstIndex(of: "="), let key = KeyToken.decode(String(token[..<eq])),
                  let values = values(token[token.index(after: eq)...].split(separator: ",").map(String.init))
            else { return nil }
            result.append((key, values))
        }
        return result
    }
}
