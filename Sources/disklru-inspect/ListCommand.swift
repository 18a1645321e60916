import ArgumentParser
import DiskLru

/// `disklru list DIR`: published entries, least recently used first, with their recorded value sizes.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List entries in LRU order (least recently used first) with each value's size and the total.",
        discussion: "Sizes are the lengths the journal records; `verify` compares them with the files. Entries "
            + "left DIRTY or never published are counted in the last line, not listed.")

    @OptionGroup var location: DirectoryArgument

    func run() throws {
        let cache = try DiskLruInspect.load(location.directory)
        let scan = cache.scan
        let clean = scan.entries.filter { $0.state == .clean }
        let header = ["key"] + (0..<scan.valueCount).map { "value \($0)" } + ["total"]
        var rows = [header]
        var total: Int64 = 0
        for entry in clean {
            let sum = entry.lengths.reduce(Int64(0)) { $0 &+ $1 }
            total = total &+ sum
            rows.append([entry.key] + entry.lengths.map(String.init) + [String(sum)])
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            let key = row[0].padding(toLength: widths[0], withPad: " ", startingAt: 0)
            let numbers = row.indices.dropFirst().map { column in
                String(repeating: " ", count: widths[column] - row[column].count) + row[column]
            }
            print(([key] + numbers).joined(separator: "  "))
        }
        let unlisted = scan.entries.count - clean.count
        print("\(clean.count) entries, \(total) bytes" + (unlisted > 0 ? " (\(unlisted) dirty or never published, not listed)" : ""))
    }
}
