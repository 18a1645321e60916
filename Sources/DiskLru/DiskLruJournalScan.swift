/// A read-only reading of a journal's bytes, for tools that inspect a cache directory without opening it
/// (`disklru`). The appVersion and valueCount come from the header instead of the caller; the body is replayed by
/// `JournalReader`, with exactly the rules the cache applies at open. Nothing here touches the file system.
public struct DiskLruJournalScan: Sendable {
    /// Why the journal cannot be replayed. Every implementation wipes such a directory at open (spec §2.3).
    public struct Corrupt: Error, Sendable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    public enum EntryState: String, Sendable {
        /// Published by a `CLEAN` record: readable, with recorded lengths.
        case clean
        /// The last state record is `DIRTY`: an edit that was interrupted, or is still open in another process.
        /// The next open deletes the entry's files.
        case dirty
        /// Only `READ` records: never published. The references keep it as `CLEAN key 0 0`; DiskLru drops it.
        case phantom
    }

    public struct JournalEntry: Sendable {
        public let key: String
        /// Recorded byte length of each value (zeros until a `CLEAN` record gives them).
        public let lengths: [Int64]
        public let state: EntryState
    }

    /// Above this, a header's valueCount is refused: every entry costs valueCount lengths in memory, and real
    /// caches use 1 to 3 (OkHttp's HTTP cache: 2).
    public static let maxValueCount = 64

    public let appVersion: Int
    public let valueCount: Int
    /// Every entry the journal leaves in the map, least recently used first (the order a rebuild writes).
    public let entries: [JournalEntry]
    /// Complete body lines, i.e. records.
    public let recordCount: Int
    /// Records per kind: `CLEAN`, `DIRTY`, `REMOVE`, `READ`.
    public let recordCountsByKind: [String: Int]
    /// Bytes after the last LF: a torn last record (0 when the journal ends cleanly).
    public let tornTailLength: Int

    /// Records that compaction would drop, counted as the references do at open (records minus entries).
    public var redundantRecordCount: Int { recordCount - entries.count }

    /// Whether `key` matches `DiskLruCache.keyPattern`, the rule `get`, `edit` and `remove` enforce.
    public static func isLegalKey(_ key: String) -> Bool { (try? DiskLruCache.validate(key)) != nil }

    public init(journal bytes: [UInt8]) throws(Corrupt) {
        var header = LineScanner(bytes: bytes)
        var headerLines: [String] = []
        while headerLines.count < 5, let line = header.next() { headerLines.append(String(decoding: line, as: UTF8.self)) }
        guard headerLines.count == 5 else {
            throw Corrupt(reason: "unexpected journal header: end of file in line \(headerLines.count + 1)")
        }
        guard let appVersion = Int32(headerLines[2]) else {
            throw Corrupt(reason: "unexpected journal header line 3: appVersion \"\(headerLines[2])\" is not a 32-bit integer")
        }
        guard let valueCount = Int(headerLines[3]), (1...DiskLruJournalScan.maxValueCount).contains(valueCount) else {
            throw Corrupt(reason: "unexpected journal header line 4: valueCount \"\(headerLines[3])\" is not in "
                + "1...\(DiskLruJournalScan.maxValueCount)")
        }
        let replay: JournalReader.Result
        do {
            replay = try JournalReader(appVersion: Int(appVersion), valueCount: valueCount).read(bytes)
        } catch {
            throw Corrupt(reason: error.reason)
        }
        self.appVersion = Int(appVersion)
        self.valueCount = valueCount
        entries = replay.entries.inLruOrder.map { entry in
            JournalEntry(key: entry.key, lengths: entry.lengths,
                         state: entry.dirtyInJournal ? .dirty : entry.readable ? .clean : .phantom)
        }
        recordCount = replay.lineCount
        var kinds: [String: Int] = [:]
        while let line = header.next() {
            // The replay succeeded, so every record has a space after its kind.
            let kind = line.prefix { $0 != 0x20 }
            kinds[String(decoding: kind, as: UTF8.self), default: 0] += 1
        }
        recordCountsByKind = kinds
        if replay.endsWithPartialLine, let lastNewline = bytes.lastIndex(of: 0x0A) {
            tornTailLength = bytes.count - lastNewline - 1
        } else {
            tornTailLength = 0
        }
    }
}
