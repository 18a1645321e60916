import DiskLru

/// Compares a cache directory's journal with its files: what `disklru verify` reports.
struct CacheCheck {
    struct Finding {
        /// A problem makes `verify` exit 1; a note is information only.
        let isProblem: Bool
        /// A short fixed word, first on the output line, so the output can be grepped.
        let kind: String
        let detail: String
    }

    private(set) var findings: [Finding] = []
    var problems: [Finding] { findings.filter(\.isProblem) }

    init(_ cache: ReadOnlyCacheDirectory) {
        let scan = cache.scan
        if scan.tornTailLength > 0 {
            problem("torn", "\(cache.journalName) ends with a \(scan.tornTailLength)-byte partial record (no final LF): "
                + "an append was cut short; openers rebuild the journal (JakeWharton 2.0.2 appends to it and loses the cache)")
        }
        if cache.journalName != DiskLruCache.journalFileName {
            note("backup", "no journal: \(cache.journalName) is read instead (every implementation restores it at open)")
        } else if cache.file(named: DiskLruCache.journalBackupFileName) != nil {
            note("backup", "\(DiskLruCache.journalBackupFileName) beside the journal (deleted at the next open)")
        }
        if cache.file(named: DiskLruCache.journalTempFileName) != nil {
            note("leftover", "\(DiskLruCache.journalTempFileName) from an interrupted compaction (deleted at the next open)")
        }
        var referenced: Set<String> = []
        for entry in scan.entries {
            guard CacheCheck.isFileName(entry.key) else {
                problem("badkey", "entry \"\(entry.key)\" is not a plain file name; its files were not looked at")
                continue
            }
            let names = (0..<scan.valueCount).map { "\(entry.key).\($0)" }
            switch entry.state {
            case .clean:
                referenced.formUnion(names)
                for (index, name) in names.enumerated() { checkValue(cache.file(named: name), name: name, entry: entry, index: index) }
            case .dirty:
                referenced.formUnion(names + names.map { $0 + ".tmp" })
                problem("dirty", "entry \(entry.key): last record is DIRTY (an edit was interrupted, or is open in another "
                    + "process); the next open deletes its files")
            case .phantom:
                note("phantom", "entry \(entry.key): READ records only, never published (the references keep it as "
                    + "CLEAN \(entry.key)\(String(repeating: " 0", count: scan.valueCount)); DiskLru drops it)")
            }
        }
        let keys = Set(scan.entries.map(\.key))
        for file in cache.files where !referenced.contains(file.name) && !CacheCheck.journalNames.contains(file.name) {
            if CacheCheck.isValueFileName(file.name, journalKeys: keys) {
                problem("orphan", "\(file.name) (\(file.size) bytes) matches a value-file name but no live entry references it")
            } else {
                note("foreign", "\(file.name) is not a cache file (a wipe of this directory would delete it)")
            }
        }
    }

    private mutating func checkValue(_ file: DirectoryFile?, name: String, entry: DiskLruJournalScan.JournalEntry, index: Int) {
        let recorded = entry.lengths[index]
        switch file?.kind {
        case .regular?:
            if let file, file.size != recorded {
                problem("length", "\(name): \(file.size) bytes on disk, \(recorded) recorded in the journal")
            }
        case .directory?, .other?:
            problem("notfile", "\(name) is not a regular file (entry \(entry.key))")
        case .missing?, nil:
            problem("missing", "\(name) (entry \(entry.key), \(recorded) bytes recorded): reads of the entry fail")
        }
    }

    private mutating func problem(_ kind: String, _ detail: String) {
        findings.append(Finding(isProblem: true, kind: kind, detail: detail))
    }

    private mutating func note(_ kind: String, _ detail: String) {
        findings.append(Finding(isProblem: false, kind: kind, detail: detail))
    }

    static let journalNames: Set<String> = [
        DiskLruCache.journalFileName, DiskLruCache.journalTempFileName, DiskLruCache.journalBackupFileName,
        DiskLruCache.lockFileName,
    ]

    /// Journal keys are not validated by any implementation, so a crafted one could name a path elsewhere.
    static func isFileName(_ key: String) -> Bool {
        !key.isEmpty && key != "." && key != ".." && !key.utf8.contains(UInt8(ascii: "/")) && !key.utf8.contains(0)
    }

    /// `key.i` or `key.i.tmp`, where key is a legal key or one the journal mentions.
    static func isValueFileName(_ name: String, journalKeys: Set<String>) -> Bool {
        var base = Substring(name)
        if base.hasSuffix(".tmp") { base = base.dropLast(4) }
        guard let dot = base.lastIndex(of: "."), dot > base.startIndex else { return false }
        let index = base[base.index(after: dot)...]
        guard !index.isEmpty, index.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
        let key = String(base[..<dot])
        return journalKeys.contains(key) || DiskLruJournalScan.isLegalKey(key)
    }
}
