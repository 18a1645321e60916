/// One key's bookkeeping. Only touched while the owning cache's lock is held.
final class Entry {
    let key: String
    /// Recorded byte length of each published value (from `CLEAN` lines or commits).
    var lengths: [Int64]
    /// True once a `CLEAN` record has published the values.
    var readable = false
    /// The open edit, if any. An editor whose entry no longer points back at it has been detached.
    var currentEditor: DiskLruEditor?
    /// Set while replaying a journal whose last state record for the key is `DIRTY`.
    var dirtyInJournal = false
    /// Changes on every commit; snapshots compare it to detect that they went stale.
    var sequenceNumber: Int64 = 0

    // Intrusive doubly linked LRU list: O(1) move-to-end and removal without a second lookup.
    var older: Entry?
    var newer: Entry?

    init(key: String, valueCount: Int) {
        self.key = key
        self.lengths = Array(repeating: 0, count: valueCount)
    }

    /// `key.index`. Built on demand rather than kept: with tens of thousands of entries the strings would
    /// outweigh the rest of the index.
    func cleanPath(_ directory: String, _ index: Int) -> String {
        directory + "/" + key + "." + String(index)
    }

    func dirtyPath(_ directory: String, _ index: Int) -> String {
        cleanPath(directory, index) + ".tmp"
    }

    /// Where an edit writes value `index`. Updates go through `key.i.tmp` and a rename, so readers switch
    /// atomically. A first creation writes `key.i` directly: nothing can read the entry before its CLEAN
    /// record, and the DIRTY record written first makes the next open delete `key.i` after a crash.
    /// This saves two renames per new entry, the most expensive calls of a commit.
    func editPath(_ directory: String, _ index: Int) -> String {
        readable ? dirtyPath(directory, index) : cleanPath(directory, index)
    }

    var totalLength: Int64 { lengths.reduce(0, +) }
}

/// The entries in LRU order (least recently used first), with a dictionary index by key.
/// A hand-rolled linked map because `OrderedDictionary` removal is O(n), which makes trim quadratic.
struct EntryMap {
    private(set) var byKey: [String: Entry] = [:]
    private(set) var oldest: Entry?
    private(set) var newest: Entry?

    var count: Int { byKey.count }

    subscript(key: String) -> Entry? { byKey[key] }

    /// Returns the entry for `key`, creating it at the newest end if absent; either way it becomes newest.
    mutating func touchOrInsert(_ key: String, valueCount: Int) -> Entry {
        if let entry = byKey[key] {
            touch(entry)
            return entry
        }
        let entry = Entry(key: key, valueCount: valueCount)
        byKey[key] = entry
        append(entry)
        return entry
    }

    mutating func insertNewest(_ entry: Entry) {
        byKey[entry.key] = entry
        append(entry)
    }

    mutating func touch(_ entry: Entry) {
        guard newest !== entry else { return }
        unlink(entry)
        append(entry)
    }

    @discardableResult
    mutating func remove(_ key: String) -> Entry? {
        guard let entry = byKey.removeValue(forKey: key) else { return nil }
        unlink(entry)
        return entry
    }

    mutating func removeAll() {
        // Break the strong chain iteratively so a long list is not freed recursively.
        var node = oldest
        while let current = node {
            node = current.newer
            current.newer = nil
            current.older = nil
        }
        byKey.removeAll()
        oldest = nil
        newest = nil
    }

    /// Entries from least to most recently used.
    var inLruOrder: [Entry] {
        var result: [Entry] = []
        result.reserveCapacity(byKey.count)
        var node = oldest
        while let current = node {
            result.append(current)
            node = current.newer
        }
        return result
    }

    private mutating func append(_ entry: Entry) {
        entry.older = newest
        entry.newer = nil
        if let newest { newest.newer = entry } else { oldest = entry }
        newest = entry
    }

    private mutating func unlink(_ entry: Entry) {
        if let older = entry.older { older.newer = entry.newer } else { oldest = entry.newer }
        if let newer = entry.newer { newer.older = entry.older } else { newest = entry.older }
        entry.older = nil
        entry.newer = nil
    }
}
