import Foundation
import Processing

/// Fixtures/imgproxy-urls.tsv, written by scripts/imgproxy-urls.py with PyPI's imgproxy URL builder.
struct ImgproxyURLFixture {
    struct Row {
        var url: String
        var signed: Bool
        var encoding: ProcessingPath.SourceEncoding
        var source: String
        var canonical: String
    }

    var keyHex = ""
    var saltHex = ""
    var presets = Presets()
    var rows: [Row] = []

    init() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/imgproxy-urls.tsv")
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
        for line in lines {
            if line.hasPrefix("# key=") { keyHex = String(line.dropFirst(6)) }
            else if line.hasPrefix("# salt=") { saltHex = String(line.dropFirst(7)) }
            else if line.hasPrefix("# presets=") { presets = try Presets(list: String(line.dropFirst(10))) }
            else if line.hasPrefix("#") || line.hasPrefix("url\t") { continue }
            else {
                let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                rows.append(Row(url: columns[0], signed: columns[1] == "key",
                                encoding: columns[2] == "plain" ? .plain : .base64,
                                source: columns[3], canonical: columns[4]))
            }
        }
    }

    static func bytes(hex: String) -> [UInt8] {
        var bytes = [UInt8]()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}
