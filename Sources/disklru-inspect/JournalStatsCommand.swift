import ArgumentParser
import DiskLru

/// `disklru stats DIR`: what the journal holds, and how much of it compaction would drop.
struct JournalStatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Journal statistics: header fields, records per kind, entries, redundant records, sizes.")

    @OptionGroup var location: DirectoryArgument

    func run() throws {
        let cache = try DiskLruInspect.load(location.directory)
        let scan = cache.scan
        let byState = Dictionary(grouping: scan.entries, by: \.state)
        let recorded = (byState[.clean] ?? []).reduce(Int64(0)) { sum, entry in entry.lengths.reduce(sum) { $0 &+ $1 } }
        let kinds = ["CLEAN", "DIRTY", "REMOVE", "READ"].map { "\($0) \(scan.recordCountsByKind[$0] ?? 0)" }
        let redundant = scan.redundantRecordCount
        // The references' rule (spec §2.6): compact once 2,000 redundant records pile up and outnumber entries.
        let due = redundant >= 2000 && redundant >= scan.entries.count
        let valueFiles = cache.files.filter { $0.kind == .regular && !CacheCheck.journalNames.contains($0.name) }
        let lines: [(String, String)] = [
            ("journal", "\(cache.path)/\(cache.journalName), \(cache.journalSize) bytes"),
            ("header", "libcore.io.DiskLruCache, version 1, appVersion \(scan.appVersion), valueCount \(scan.valueCount)"),
            ("records", "\(scan.recordCount): " + kinds.joined(separator: ", ")),
            ("entries", "\(byState[.clean]?.count ?? 0) published, \(byState[.dirty]?.count ?? 0) dirty, "
                + "\(byState[.phantom]?.count ?? 0) never published"),
            ("redundant", "\(redundant) records (compaction \(due ? "due" : "not due"): at 2000 and at least the entry count)"),
            ("size", "\(recorded) bytes recorded for published entries"),
            ("files", "\(valueFiles.count) besides the journal files, \(valueFiles.reduce(Int64(0)) { $0 &+ $1.size }) bytes"),
            ("torn tail", scan.tornTailLength == 0 ? "none" : "\(scan.tornTailLength) bytes after the last LF"),
        ]
        for (label, value) in lines { print(label.padding(toLength: 10, withPad: " ", startingAt: 0) + " " + value) }
    }
}
