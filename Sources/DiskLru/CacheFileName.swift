/// The names DiskLru writes in its directory. Only these are ever deleted: a wipe or an orphan sweep leaves
/// any other file (a user's, another program's) alone.
enum CacheFileName {
    /// A value file: `key.N` (published, or written in place by a first creation) or `key.N.tmp` (an update).
    struct Value: Equatable {
        let key: String
        let index: Int
        let isTemporary: Bool
    }

    static let journalNames: Set<String> = [
        DiskLruCache.journalFileName, DiskLruCache.journalTempFileName, DiskLruCache.journalBackupFileName,
    ]

    /// `name` as a value file name, or nil if it is not one.
    static func value(_ name: String) -> Value? {
        var stem = Substring(name)
        let isTemporary = stem.hasSuffix(".tmp")
        if isTemporary { stem = stem.dropLast(4) }
        guard let dot = stem.lastIndex(of: ".") else { return nil }
        let key = String(stem[..<dot])
        let digits = stem[stem.index(after: dot)...]
        guard !digits.isEmpty, digits.count <= 9, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let index = Int(digits), (try? DiskLruCache.validate(key)) != nil else { return nil }
        return Value(key: key, index: index, isTemporary: isTemporary)
    }

    /// Whether DiskLru could have written `name` (the lock file is kept: another process may be waiting on it).
    static func isOurs(_ name: String) -> Bool {
        journalNames.contains(name) || value(name) != nil
    }
}
