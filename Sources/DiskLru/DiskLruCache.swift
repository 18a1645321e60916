import Foundation

/// A bounded, LRU, multi-value disk cache whose directory is byte-compatible with Android's DiskLruCache
/// (OkHttp 3.x and JakeWharton's): either can open what the other wrote.
///
/// Each entry has a key matching `[a-z0-9_-]{1,120}` and exactly `valueCount` byte values, stored as
/// `key.0 … key.(n-1)` and written through `key.i.tmp` + rename. The append-only `journal` records
/// edits (`DIRTY`), publishes (`CLEAN`), removals and reads; it is compacted once redundant records pile up.
///
/// Thread safety: every method may be called from any thread or task. Cache state lives behind one lock
/// (like the references' monitor); value bytes are read and written outside it.
///
/// Processes: the directory is guarded by a `flock` held for the cache's lifetime, or only during each access
/// (`DiskLruOptions.Holding.perAccess`), which reloads the journal when another process changed it.
public final class DiskLruCache: @unchecked Sendable {
    public static let keyPattern = "[a-z0-9_-]{1,120}"
    public static let journalFileName = "journal"
    public static let journalTempFileName = "journal.tmp"
    public static let journalBackupFileName = "journal.bkp"
    public static let lockFileName = "journal.lock"
    /// Compaction happens once this many records are redundant (and at least as many as there are entries).
    static let compactionThreshold = 2000

    public let directory: URL
    public let appVersion: Int
    public let valueCount: Int
    public let options: DiskLruOptions
    let path: String
    private let journalPath: String
    /// Opened with `openReadOnly`: nothing is written, locked or deleted.
    private let readOnly: Bool

    private let lock = NSLock()
    // Everything below is guarded by `lock`.
    private var entries = EntryMap()
    private var journal: JournalWriter?
    private var directoryLock: DirectoryLock?
    /// Nested accesses under way (`Holding.perAccess`); the directory lock is held while it is above 0.
    private var accessDepth = 0
    /// The journal as this process left it at the end of its last access; a different one means another
    /// process changed the cache meanwhile.
    private var journalIdentity: FileIdentity?
    private var orphansRemovedValue = 0
    private var maxSizeValue: Int64
    private var sizeValue: Int64 = 0
    private var redundantOpCount = 0
    /// Starts at 1 because entries loaded from the journal carry 0: a snapshot taken after a reopen
    /// must go stale at the first commit (both references miss this, spec §3.6).
    private var nextSequenceNumber: Int64 = 1
    private var closed = false
    private var cleanupPending = false
    private var lastCleanupErrorValue: DiskLruError?
    private var recoveredCorruptionValue: String?
    private let cleanupQueue: DispatchQueue?

    /// Opens (or creates) the cache in `directory`, replaying its journal. A journal written for another
    /// appVersion or valueCount, or a corrupt one, makes the cache delete its own files (journal and value
    /// files; nothing else in the directory) and start empty. Without a sound journal (lost, corrupt, torn,
    /// restored from its backup), value files that no entry references are deleted (`orphansRemoved`).
    public convenience init(
        directory: URL, appVersion: Int, valueCount: Int, maxSize: Int64, options: DiskLruOptions = .init()
    ) throws(DiskLruError) {
        try self.init(directory: directory, appVersion: appVersion, valueCount: valueCount, maxSize: maxSize,
                      options: options, readOnly: false)
    }

    /// Opens the cache in `directory` for reading only: no lock is taken, nothing is created, written or
    /// deleted (a missing directory is an empty cache; a corrupt journal is an empty cache, reported by
    /// `recoveredCorruption`; entries left mid-edit are skipped). Reads record no use. Changes throw
    /// `DiskLruError.readOnly`. What it shows may be changed underneath it by a process using the directory.
    public static func openReadOnly(directory: URL, appVersion: Int, valueCount: Int) throws(DiskLruError) -> DiskLruCache {
        try DiskLruCache(directory: directory, appVersion: appVersion, valueCount: valueCount, maxSize: .max,
                         options: DiskLruOptions(locking: .none, cleanup: .manual), readOnly: true)
    }

    private init(
        directory: URL, appVersion: Int, valueCount: Int, maxSize: Int64, options: DiskLruOptions, readOnly: Bool
    ) throws(DiskLruError) {
        guard valueCount > 0 else { throw .invalidArgument("valueCount <= 0") }
        guard maxSize > 0 else { throw .invalidArgument("maxSize <= 0") }
        self.directory = directory
        self.appVersion = appVersion
        self.valueCount = valueCount
        self.options = options
        self.maxSizeValue = maxSize
        self.path = directory.standardizedFileURL.path
        self.journalPath = path + "/" + DiskLruCache.journalFileName
        self.readOnly = readOnly
        self.cleanupQueue = options.cleanup == .background && !readOnly
            ? DispatchQueue(label: "DiskLruCache cleanup", qos: .utility) : nil

        if readOnly {
            try readJournalReadOnly()
            return
        }
        try FileIO.makeDirectory(path)
        if options.locking != .none {
            directoryLock = try DirectoryLock(directory: path, policy: options.locking)
            try directoryLock!.acquire()
        }
        if perAccess { accessDepth = 1 }
        try openJournal()
        leaveAccessLocked()
    }

    /// Opens (or creates) a cache; the same as the initializer, under the references' name.
    public static func open(
        directory: URL, appVersion: Int, valueCount: Int, maxSize: Int64, options: DiskLruOptions = .init()
    ) throws(DiskLruError) -> DiskLruCache {
        try DiskLruCache(directory: directory, appVersion: appVersion, valueCount: valueCount, maxSize: maxSize, options: options)
    }

    deinit {
        journal?.discard()
        entries.removeAll()
    }

    // MARK: - Public API

    public var maxSize: Int64 { withLock { maxSizeValue } }

    private var perAccess: Bool { options.holding == .perAccess && !readOnly }

    /// Changes the bound; when lowered, least-recently-used entries are evicted in the background.
    public func setMaxSize(_ newValue: Int64) {
        withLock {
            maxSizeValue = newValue
            guard !closed else { return }
            scheduleCleanup()
            guard options.cleanup == .inline, (try? enterAccessLocked()) != nil else { return }
            defer { leaveAccessLocked() }
            runInlineCleanup()
        }
    }

    /// The sum of the recorded lengths of every value.
    public var size: Int64 { query { sizeValue } }

    /// Published entries (entries under their first edit are not counted).
    public var entryCount: Int { query { entries.byKey.values.lazy.filter(\.readable).count } }

    public var isClosed: Bool { withLock { closed } }

    /// True while a trim or compaction has been requested and not yet run.
    public var isCleanupPending: Bool { withLock { cleanupPending } }

    /// The last error the background cleanup hit (it is retried at the next trigger); nil once one succeeds.
    public var lastCleanupError: DiskLruError? { withLock { lastCleanupErrorValue } }

    /// Why the journal was discarded at open, if it was corrupt (the directory was then wiped).
    public var recoveredCorruption: String? { withLock { recoveredCorruptionValue } }

    /// Value files (`key.N`, `key.N.tmp`) that no entry referenced and that were deleted: found at an open
    /// that had no usable journal (lost, corrupt, torn, restored from backup) and at each compaction.
    public var orphansRemoved: Int { withLock { orphansRemovedValue } }

    // MARK: - Accesses (Holding.perAccess)

    /// Takes the directory for a sequence of calls that must see no other process in between (a
    /// read-modify-write). Waits for the lock as `options.locking` says, and reloads the journal if another
    /// process changed it. Pair with `endAccess()`; accesses nest. With `Holding.lifetime` it does nothing.
    public func beginAccess() throws(DiskLruError) {
        try withLock { () throws(DiskLruError) in
            try checkNotClosed()
            try enterAccessLocked()
        }
    }

    /// Ends an access begun by `beginAccess()`: buffered journal records are written and, once no access or
    /// editor is left, the directory lock is released.
    public func endAccess() {
        withLock { leaveAccessLocked() }
    }

    /// Runs `body` inside one access (see `beginAccess()`).
    public func withAccess<T>(_ body: () throws -> T) throws -> T {
        try beginAccess()
        defer { endAccess() }
        return try body()
    }

    /// Starts an edit of `key`; nil while another edit of the key is open.
    public func edit(_ key: String) throws(DiskLruError) -> DiskLruEditor? {
        try edit(key, expectedSequenceNumber: nil, requireExisting: false)
    }

    /// A consistent view of `key`'s values as they are now; nil when absent, not yet published, or a value
    /// file has gone missing (the entry is then dropped). Later updates and removals do not change it.
    public func snapshot(forKey key: String) throws(DiskLruError) -> DiskLruSnapshot? {
        try snapshot(forKey: key, opening: { _ in nil })
    }

    /// The same as `snapshot(forKey:)` (a use: `READ`, LRU order), but opening only the values `opening`
    /// returns, given the entry's current sequence number (nil: every value). A reader that knows what a
    /// value holds for that sequence number (parsed metadata) need not open or read it again. Reading a value
    /// not opened throws `invalidArgument`; a missing value file among those not opened goes unnoticed.
    /// `opening` runs under the cache's lock: it must not call back into the cache.
    public func snapshot(forKey key: String, opening: (_ sequenceNumber: Int64) -> [Int]?) throws(DiskLruError) -> DiskLruSnapshot? {
        try DiskLruCache.validate(key)
        return try accessing { () throws(DiskLruError) -> DiskLruSnapshot? in
            guard let entry = entries[key], entry.readable else { return nil }
            let indices = opening(entry.sequenceNumber)
            if let indices { for index in indices { try checkIndex(index) } }
            guard let snapshot = try openSnapshot(entry, only: indices) else { return nil }
            if readOnly { return snapshot }
            redundantOpCount += 1
            // READ only feeds LRU order across restarts; losing it to a full disk must not fail the read.
            try? journal?.appendBuffered("READ", key)
            entries.touch(entry)
            if journalRebuildRequired { scheduleCleanup() }
            return snapshot
        }
    }

    /// Whether a published entry exists. Does not count as a use (no `READ`, LRU order unchanged).
    public func contains(_ key: String) -> Bool {
        query { entries[key]?.readable ?? false }
    }

    /// Writes a full set of values for `key` (exactly `valueCount` of them) and publishes them at once.
    public func setData(_ values: [Data], forKey key: String) throws(DiskLruError) {
        guard values.count == valueCount else {
            throw .invalidArgument("setData needs \(valueCount) values, got \(values.count)")
        }
        try write(Dictionary(uniqueKeysWithValues: values.enumerated().map { ($0, $1) }), key: key, requireExisting: false)
    }

    /// Replaces some values of an existing entry; the others keep their published bytes.
    public func setPartialData(_ values: [Int: Data], forKey key: String) throws(DiskLruError) {
        for index in values.keys where !(0..<valueCount).contains(index) {
            throw .invalidArgument("value index \(index) is outside 0..<\(valueCount)")
        }
        try write(values, key: key, requireExisting: true)
    }

    /// Removes `key`. An open edit of it is detached: its commit will store nothing.
    @discardableResult
    public func remove(_ key: String) throws(DiskLruError) -> Bool {
        try DiskLruCache.validate(key)
        return try accessing { () throws(DiskLruError) -> Bool in
            try checkWritable()
            guard let entry = entries[key] else { return false }
            try removeEntry(entry)
            return true
        }
    }

    /// Published keys, least recently used first. Does not count as a use.
    public func keys() -> [String] {
        query { entries.inLruOrder.filter(\.readable).map(\.key) }
    }

    /// Snapshots of the published entries, least recently used first, opened one at a time as the sequence
    /// is walked. Entries added after the call are not included; entries removed before they are reached are
    /// skipped. Entries under their first edit are skipped, never killed (OkHttp 3.13's iterator kills them).
    public func snapshots() -> DiskLruSnapshotSequence {
        DiskLruSnapshotSequence(cache: self, keys: keys())
    }

    /// Removes every entry; open edits are detached, open snapshots stay readable.
    public func evictAll() throws(DiskLruError) {
        try accessing { () throws(DiskLruError) in
            try checkWritable()
            for entry in entries.inLruOrder { try removeEntry(entry) }
        }
    }

    /// Trims to size and writes buffered journal records.
    public func flush() throws(DiskLruError) {
        try accessing { () throws(DiskLruError) in
            if readOnly { return }
            try trimToSize()
            try journal?.flush()
        }
    }

    /// Runs what the background job runs: trim to size, then compact the journal if required.
    public func performCleanup() throws(DiskLruError) {
        try withLock { () throws(DiskLruError) in
            guard !closed else { return }
            try checkWritable()
            try enterAccessLocked()
            defer { leaveAccessLocked() }
            try cleanupLocked()
        }
    }

    /// Aborts open edits, trims, flushes and releases the directory. Calling it again does nothing.
    public func close() throws(DiskLruError) {
        try withLock { () throws(DiskLruError) in
            guard !closed else { return }
            let firstError = closeLocked()
            releaseDirectoryLocked()
            if let firstError { throw firstError }
        }
    }

    /// Closes the cache and deletes what DiskLru keeps in its directory: the journal files and every value
    /// file (`key.N`, `key.N.tmp`). Anything else in the directory is not the cache's and stays.
    public func delete() throws(DiskLruError) {
        try withLock { () throws(DiskLruError) in
            if readOnly { throw .readOnly(directory: path) }
            if !closed { _ = closeLocked() }
            defer { releaseDirectoryLocked() }
            try FileIO.deleteFiles(in: path, where: CacheFileName.isOurs)
        }
    }

    /// Aborts open edits, trims and closes the journal, inside an access so no other process is mid-change;
    /// returns the first failure. The directory lock is left to the caller.
    private func closeLocked() -> DiskLruError? {
        if readOnly {
            closed = true
            return nil
        }
        var firstError: DiskLruError?
        do throws(DiskLruError) { try enterAccessLocked() } catch { firstError = error }
        if firstError == nil {
            for entry in entries.inLruOrder {
                guard let editor = entry.currentEditor else { continue }
                do throws(DiskLruError) { try completeEdit(editor, success: false) } catch { firstError = firstError ?? error }
            }
            do throws(DiskLruError) { try trimToSize() } catch { firstError = firstError ?? error }
            do throws(DiskLruError) { try journal?.close() } catch { firstError = firstError ?? error }
        } else {
            journal?.discard()  // without the lock, nothing more goes into the journal
        }
        journal = nil
        closed = true
        entries.removeAll()
        return firstError
    }

    private func releaseDirectoryLocked() {
        accessDepth = 0
        directoryLock = nil
    }

    // MARK: - Editing (called by DiskLruEditor)

    func edit(_ key: String, expectedSequenceNumber: Int64?, requireExisting: Bool) throws(DiskLruError) -> DiskLruEditor? {
        try DiskLruCache.validate(key)
        return try accessing { () throws(DiskLruError) -> DiskLruEditor? in
            try checkWritable()
            let existing = entries[key]
            if let expected = expectedSequenceNumber, existing?.sequenceNumber != expected || existing?.readable != true {
                return nil  // the snapshot is stale
            }
            if requireExisting && existing?.readable != true { throw .entryNotFound(key: key) }
            if existing?.currentEditor != nil { return nil }
            // DIRTY must be on disk before any value file is created, so a crash leaves a record to clean up.
            try journal!.appendAndFlush("DIRTY", key)
            let entry: Entry
            if let existing {
                entries.touch(existing)
                entry = existing
            } else {
                entry = Entry(key: key, valueCount: valueCount)
                entries.insertNewest(entry)
            }
            let editor = DiskLruEditor(cache: self, entry: entry, valueCount: valueCount)
            entry.currentEditor = editor
            if perAccess {
                // The editor keeps the directory until commit or abort: another process must not replay
                // its DIRTY record as a crash and delete the files being written.
                accessDepth += 1
                editor.holdsAccess = true
            }
            return editor
        }
    }

    /// Where an editor's value `index` should be written, or nil when the editor was detached (writes vanish).
    func dirtyPathForWriting(_ editor: DiskLruEditor, index: Int) throws(DiskLruError) -> String? {
        try checkIndex(index)
        return try withLock { () throws(DiskLruError) -> String? in
            guard !editor.done else { throw .editorFinished }
            guard editor.entry.currentEditor === editor else { return nil }
            editor.written[index] = true
            editor.writtenLengths[index] = nil
            return editor.entry.editPath(path, index)
        }
    }

    func recordWrite(_ editor: DiskLruEditor, index: Int, length: Int64, failure: DiskLruError?) {
        withLock {
            editor.writtenLengths[index] = length
            if let failure, editor.writeFailure == nil { editor.writeFailure = failure }
        }
    }

    /// The published value `index` as seen by an editor, or nil if there is none.
    func publishedPath(_ editor: DiskLruEditor, index: Int) throws(DiskLruError) -> String? {
        try checkIndex(index)
        return try withLock { () throws(DiskLruError) -> String? in
            guard !editor.done else { throw .editorFinished }
            guard editor.entry.currentEditor === editor, editor.entry.readable else { return nil }
            return editor.entry.cleanPath(path, index)
        }
    }

    func finishEdit(_ editor: DiskLruEditor, success: Bool) throws(DiskLruError) {
        try withLock { () throws(DiskLruError) in try completeEdit(editor, success: success) }
    }

    // MARK: - Snapshots (called by DiskLruSnapshot and the iterator)

    /// A snapshot for iteration: no READ record, no change in LRU order, nil for anything not published.
    func iterationSnapshot(forKey key: String) -> DiskLruSnapshot? {
        try? accessing { () throws(DiskLruError) -> DiskLruSnapshot? in
            guard let entry = entries[key], entry.readable else { return nil }
            return try openSnapshot(entry)
        }
    }

    // MARK: - Internals (lock held)

    private func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    private func checkNotClosed() throws(DiskLruError) {
        if closed { throw .closed }
    }

    private func checkWritable() throws(DiskLruError) {
        if readOnly { throw .readOnly(directory: path) }
    }

    /// Runs `body` under the in-process lock and inside an access (`Holding.perAccess`).
    private func accessing<T>(_ body: () throws(DiskLruError) -> T) throws(DiskLruError) -> T {
        try withLock { () throws(DiskLruError) -> T in
            try checkNotClosed()
            try enterAccessLocked()
            defer { leaveAccessLocked() }
            let result = try body()
            runInlineCleanup()
            return result
        }
    }

    /// An in-memory answer, brought up to date with the directory first when accesses are per call; if the
    /// directory cannot be taken, the last known state.
    private func query<T>(_ body: () -> T) -> T {
        withLock {
            guard perAccess, !closed, (try? enterAccessLocked()) != nil else { return body() }
            defer { leaveAccessLocked() }
            return body()
        }
    }

    private func enterAccessLocked() throws(DiskLruError) {
        guard perAccess else { return }
        if accessDepth == 0 {
            try directoryLock?.acquire()
            if FileIdentity(path: journalPath) != journalIdentity {
                do throws(DiskLruError) { try reloadJournal() } catch {
                    directoryLock?.release()
                    throw error
                }
            }
        }
        accessDepth += 1
    }

    private func leaveAccessLocked() {
        guard perAccess, accessDepth > 0 else { return }
        accessDepth -= 1
        guard accessDepth == 0 else { return }
        // Buffered READ records go out now: after the release the journal may be another process's to read.
        try? journal?.flush()
        journalIdentity = FileIdentity(path: journalPath)
        directoryLock?.release()
    }

    /// Another process changed the journal since our last access: what we hold in memory is out of date.
    private func reloadJournal() throws(DiskLruError) {
        journal?.discard()
        journal = nil
        entries.removeAll()
        sizeValue = 0
        redundantOpCount = 0
        try openJournal()
        // Numbers never used before: a key's sequence number must not name both its state before the other
        // process's change and after it (readers remember what a value held by it).
        for entry in entries.inLruOrder {
            entry.sequenceNumber = nextSequenceNumber
            nextSequenceNumber += 1
        }
        if sizeValue > maxSizeValue || journalRebuildRequired { scheduleCleanup() }
    }

    private func checkIndex(_ index: Int) throws(DiskLruError) {
        guard (0..<valueCount).contains(index) else {
            throw .invalidArgument("value index \(index) is outside 0..<\(valueCount)")
        }
    }

    static func validate(_ key: String) throws(DiskLruError) {
        let utf8 = key.utf8
        guard (1...120).contains(utf8.count), utf8.allSatisfy({ byte in
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F || byte == 0x2D
        }) else { throw .invalidKey(key) }
    }

    private func write(_ values: [Int: Data], key: String, requireExisting: Bool) throws(DiskLruError) {
        guard let editor = try edit(key, expectedSequenceNumber: nil, requireExisting: requireExisting) else {
            throw .editInProgress(key: key)
        }
        do throws(DiskLruError) {
            for (index, data) in values.sorted(by: { $0.key < $1.key }) { try editor.set(data, at: index) }
            try editor.commit()
        } catch {
            editor.abortUnlessCommitted()
            throw error
        }
    }

    /// Opens every value of `entry`, or only `indices` (the others get -1).
    private func openSnapshot(_ entry: Entry, only indices: [Int]? = nil) throws(DiskLruError) -> DiskLruSnapshot? {
        var descriptors = [Int32](repeating: -1, count: valueCount)
        for index in indices ?? Array(0..<valueCount) where descriptors[index] < 0 {
            do throws(DiskLruError) {
                descriptors[index] = try FileIO.openForReading(entry.cleanPath(path, index))
            } catch {
                for fd in descriptors where fd >= 0 { FileIO.closeDescriptor(fd) }
                guard case .io(_, _, let code) = error, code == ENOENT else { throw error }
                // A value file vanished underneath us: the entry can never be served again (OkHttp's rule).
                // If removing the rest fails too, the entry stays listed and is retried on the next access;
                // the read itself still just misses.
                if !readOnly { try? removeEntry(entry) }
                return nil
            }
        }
        return DiskLruSnapshot(
            cache: self, key: entry.key, sequenceNumber: entry.sequenceNumber,
            lengths: entry.lengths, descriptors: descriptors, directory: path)
    }

    private func completeEdit(_ editor: DiskLruEditor, success: Bool) throws(DiskLruError) {
        guard !editor.done else { throw .editorFinished }
        editor.done = true
        defer {
            if editor.holdsAccess {
                editor.holdsAccess = false
                leaveAccessLocked()
            }
        }
        let entry = editor.entry
        guard entry.currentEditor === editor else { return }  // detached: stores nothing

        if success, let failure = editor.writeFailure {
            try finish(editor, success: false)
            throw failure
        }
        if success && !entry.readable, let missing = editor.written.firstIndex(of: false) {
            try finish(editor, success: false)
            throw .incompleteEntry(key: entry.key, missingIndex: missing)
        }
        try finish(editor, success: success)
    }

    private func finish(_ editor: DiskLruEditor, success requestedSuccess: Bool) throws(DiskLruError) {
        let entry = editor.entry
        var success = requestedSuccess
        if success {
            success = try publishEditFiles(of: editor)
        } else {
            discardEditFiles(of: entry)
        }
        redundantOpCount += 1
        entry.currentEditor = nil
        do throws(DiskLruError) {
            if entry.readable || success {
                entry.readable = true
                try journal!.appendAndFlush("CLEAN", entry.key, lengths: entry.lengths)
                if success {
                    entry.sequenceNumber = nextSequenceNumber
                    nextSequenceNumber += 1
                }
            } else {
                entries.remove(entry.key)
                // A lost REMOVE leaves DIRTY as the key's last record, which the next open also reads as
                // "gone": the abort's outcome is the same either way, so it is not reported (as in removeEntry).
                try? journal!.appendAndFlush("REMOVE", entry.key)
            }
        } catch {
            // The journal on disk ends this key with DIRTY, so the next open deletes it; match that now.
            forget(entry)
            throw error
        }
        if sizeValue > maxSizeValue || journalRebuildRequired { scheduleCleanup() }
        runInlineCleanup()  // still inside the editor's access (completeEdit leaves it after this)
    }

    /// Publishes an editor's files. An update renames each written `.tmp` over its value file, so readers
    /// switch atomically. A first creation wrote straight to `key.i` (see `Entry.editPath`); it only checks
    /// that every file is still there. Returns false when a first creation lost a value file (deleted
    /// underneath us): the edit then counts as aborted.
    private func publishEditFiles(of editor: DiskLruEditor) throws(DiskLruError) -> Bool {
        let entry = editor.entry
        let durable = options.durability == .fsync
        var published: [Int] = []
        for index in 0..<valueCount where editor.written[index] {
            let clean = entry.cleanPath(path, index)
            if !entry.readable {
                guard FileIO.exists(clean) else {
                    discardEditFiles(of: entry)
                    return false
                }
                if durable { try FileIO.syncFile(clean) }
            } else {
                let dirty = entry.dirtyPath(path, index)
                if durable && FileIO.exists(dirty) { try FileIO.syncFile(dirty) }
                guard try FileIO.rename(dirty, to: clean) else { continue }  // lost tmp: keep the old value
            }
            published.append(index)
        }
        for index in published {
            var length = editor.writtenLengths[index] ?? -1
            if length < 0 { length = try FileIO.fileLength(entry.cleanPath(path, index)) }
            sizeValue += length - entry.lengths[index]
            entry.lengths[index] = length
        }
        if durable && !published.isEmpty { try FileIO.syncDirectory(path) }
        return true
    }

    /// Deletes what an unfinished edit wrote: the `.tmp` files, and for a first creation the value files.
    private func discardEditFiles(of entry: Entry) {
        for index in 0..<valueCount {
            try? FileIO.deleteIfExists(entry.dirtyPath(path, index))
            if !entry.readable { try? FileIO.deleteIfExists(entry.cleanPath(path, index)) }
        }
    }

    /// Detaches any editor, deletes the files, appends REMOVE and drops the entry.
    private func removeEntry(_ entry: Entry) throws(DiskLruError) {
        if entry.currentEditor != nil {
            entry.currentEditor = nil
            discardEditFiles(of: entry)
        }
        for index in 0..<valueCount {
            try FileIO.deleteIfExists(entry.cleanPath(path, index))
            sizeValue -= entry.lengths[index]
            entry.lengths[index] = 0
        }
        redundantOpCount += 1
        // If this record is lost (disk full), the stale CLEAN line points at deleted files, and the next
        // open drops the entry on first access: the outcome is the same, so the removal still succeeds.
        try? journal?.appendBuffered("REMOVE", entry.key)
        entries.remove(entry.key)
        if journalRebuildRequired { scheduleCleanup() }
    }

    /// Drops an entry whose journal state could not be recorded, deleting its files.
    private func forget(_ entry: Entry) {
        discardEditFiles(of: entry)
        for index in 0..<valueCount {
            try? FileIO.deleteIfExists(entry.cleanPath(path, index))
            sizeValue -= entry.lengths[index]
        }
        entries.remove(entry.key)
    }

    /// Evicts least-recently-used entries until the size fits. Entries being edited are skipped rather
    /// than waited for (JakeWharton's trim spins forever on them) or killed (OkHttp detaches them);
    /// their commit triggers another trim.
    private func trimToSize() throws(DiskLruError) {
        var candidate = entries.oldest
        while sizeValue > maxSizeValue, let entry = candidate {
            candidate = entry.newer
            if entry.currentEditor != nil { continue }
            try removeEntry(entry)
        }
    }

    private var journalRebuildRequired: Bool {
        redundantOpCount >= DiskLruCache.compactionThreshold && redundantOpCount >= entries.count
    }

    private func scheduleCleanup() {
        guard !cleanupPending else { return }
        cleanupPending = true
        cleanupQueue?.async { [weak self] in
            guard let self else { return }
            self.withLock {
                do throws(DiskLruError) {
                    guard !self.closed else {
                        self.cleanupPending = false
                        return
                    }
                    try self.enterAccessLocked()
                    defer { self.leaveAccessLocked() }
                    try self.cleanupLocked()
                    self.lastCleanupErrorValue = nil
                } catch {
                    self.lastCleanupErrorValue = error
                }
            }
        }
    }

    /// Returns once the background cleanup queued so far has run (tests wait on this rather than on a clock).
    func waitForBackgroundCleanup() {
        cleanupQueue?.sync {}
    }

    /// `Cleanup.inline`: runs a pending trim or compaction now. Called only where the cache is consistent and
    /// inside an access (the end of a call or of a commit), never from inside a trim, so it cannot recurse.
    private func runInlineCleanup() {
        guard options.cleanup == .inline, cleanupPending, !closed, !readOnly else { return }
        do throws(DiskLruError) {
            try cleanupLocked()
            lastCleanupErrorValue = nil
        } catch {
            lastCleanupErrorValue = error
        }
    }

    private func cleanupLocked() throws(DiskLruError) {
        cleanupPending = false
        guard !closed else { return }
        try trimToSize()
        if journalRebuildRequired {
            try rebuildJournal()
            // Compaction is rare (thousands of operations apart), so a directory listing here is cheap.
            removeOrphans()
        }
    }

    // MARK: - Journal replay and compaction

    private func openJournal() throws(DiskLruError) {
        let backupPath = path + "/" + DiskLruCache.journalBackupFileName
        // Without a journal we can trust whole, files may be left that nothing references: a lost journal
        // (a new cache over old files), a wiped corrupt one, a backup restored after a crash, a torn record.
        // A sound journal is trusted, so an ordinary open does not list the directory.
        var sweepOrphans = false
        defer { if sweepOrphans { removeOrphans() } }
        if FileIO.exists(backupPath) {
            if FileIO.exists(journalPath) {
                try FileIO.deleteIfExists(backupPath)
            } else {
                try FileIO.rename(backupPath, to: journalPath)
                sweepOrphans = true
            }
        }
        if let bytes = try FileIO.readFile(journalPath) {
            let reader = JournalReader(appVersion: appVersion, valueCount: valueCount)
            switch Result(catching: { () throws(JournalReader.Corrupt) in try reader.read(bytes) }) {
            case .success(let replay):
                entries = replay.entries
                redundantOpCount = replay.lineCount - entries.count
                dropPhantomEntries()
                if replay.endsWithPartialLine {
                    // Never append after a torn record: rewrite the journal from what was read.
                    sweepOrphans = true
                    try rebuildJournal()
                } else {
                    journal = try JournalWriter(path: journalPath, syncOnFlush: options.durability == .fsync)
                }
                try processReplayedEntries()
                return
            case .failure(let corrupt):
                // Start over from nothing: unlike OkHttp 3.13, no half-read entry survives the wipe (spec §2.3).
                // Only DiskLru's own files go: anything else in the directory is not ours to delete.
                recoveredCorruptionValue = "DiskLruCache \(path) is corrupt: \(corrupt.reason), removing"
                entries.removeAll()
                try FileIO.deleteFiles(in: path, where: CacheFileName.isOurs)
            }
        }
        sweepOrphans = true
        try FileIO.makeDirectory(path)
        try rebuildJournal()
    }

    /// Deletes value files that no entry references (counted in `orphansRemoved`); other files stay.
    /// An entry being edited owns its `key.N` (a first creation writes there) and its `key.N.tmp`.
    private func removeOrphans() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
        for name in names {
            guard let file = CacheFileName.value(name) else { continue }
            if let entry = entries[file.key], file.index < valueCount {
                let editing = entry.currentEditor != nil || entry.dirtyInJournal
                if editing || (!file.isTemporary && entry.readable) { continue }
            }
            if (try? FileIO.deleteIfExists(path + "/" + name)) != nil { orphansRemovedValue += 1 }
        }
    }

    /// The read-only open: the journal (or its backup) is read, never rewritten, and nothing is deleted.
    private func readJournalReadOnly() throws(DiskLruError) {
        let backupPath = path + "/" + DiskLruCache.journalBackupFileName
        var bytes = try FileIO.readFile(journalPath)
        if bytes == nil { bytes = try FileIO.readFile(backupPath) }
        guard let bytes else { return }
        let reader = JournalReader(appVersion: appVersion, valueCount: valueCount)
        switch Result(catching: { () throws(JournalReader.Corrupt) in try reader.read(bytes) }) {
        case .success(let replay):
            entries = replay.entries
            dropPhantomEntries()
            for entry in entries.inLruOrder {
                if entry.dirtyInJournal { entries.remove(entry.key) } else { sizeValue += entry.totalLength }
            }
        case .failure(let corrupt):
            recoveredCorruptionValue = "DiskLruCache \(path) is corrupt: \(corrupt.reason)"
        }
    }

    /// `READ` lines of unknown keys create never-published entries with no editor. The references keep them
    /// and later write `CLEAN key 0 0`; they can never be served, so we drop them.
    private func dropPhantomEntries() {
        for entry in entries.inLruOrder where !entry.readable && !entry.dirtyInJournal {
            entries.remove(entry.key)
        }
    }

    /// Counts the size of published entries; entries left mid-edit by a crash lose all their files.
    private func processReplayedEntries() throws(DiskLruError) {
        try FileIO.deleteIfExists(path + "/" + DiskLruCache.journalTempFileName)
        for entry in entries.inLruOrder {
            if entry.dirtyInJournal {
                for index in 0..<valueCount {
                    try FileIO.deleteIfExists(entry.cleanPath(path, index))
                    try FileIO.deleteIfExists(entry.dirtyPath(path, index))
                }
                entries.remove(entry.key)
            } else {
                sizeValue += entry.totalLength
            }
        }
    }

    /// Writes a compact journal (one line per entry, LRU order) to `journal.tmp` and swaps it in through
    /// `journal.bkp`, so a crash at any step leaves a complete journal or backup behind.
    private func rebuildJournal() throws(DiskLruError) {
        try? journal?.flush()
        var text = "\(JournalReader.magic)\n\(JournalReader.version)\n\(appVersion)\n\(valueCount)\n\n"
        for entry in entries.inLruOrder {
            if entry.currentEditor != nil || entry.dirtyInJournal {
                text += "DIRTY \(entry.key)\n"
            } else {
                text += "CLEAN \(entry.key)"
                for length in entry.lengths { text += " \(length)" }
                text += "\n"
            }
        }
        let tempPath = path + "/" + DiskLruCache.journalTempFileName
        let backupPath = path + "/" + DiskLruCache.journalBackupFileName
        let durable = options.durability == .fsync
        let fd = try FileIO.createTruncating(tempPath, directory: path)
        do throws(DiskLruError) {
            try FileIO.writeAll(fd, Data(text.utf8), path: tempPath)
            if durable { try FileIO.sync(fd, path: tempPath) }
        } catch {
            FileIO.closeDescriptor(fd)
            try? FileIO.deleteIfExists(tempPath)
            throw error
        }
        FileIO.closeDescriptor(fd)
        let hadJournal = try FileIO.rename(journalPath, to: backupPath)
        do throws(DiskLruError) {
            try FileIO.rename(tempPath, to: journalPath)
        } catch {
            if hadJournal { _ = try? FileIO.rename(backupPath, to: journalPath) }
            throw error
        }
        try FileIO.deleteIfExists(backupPath)
        if durable { try FileIO.syncDirectory(path) }
        let newWriter = try JournalWriter(path: journalPath, syncOnFlush: durable)
        journal?.discard()
        journal = newWriter
        redundantOpCount = 0
    }
}
