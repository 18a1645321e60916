import Foundation

/// An open edit of one entry. Write some or all values, then `commit()` to publish them atomically or
/// `abort()` to drop them. A first creation must write every value; an update may write only some.
///
/// If the entry is removed or evicted while the edit is open, the editor is detached: writes are
/// discarded and `commit()` stores nothing.
public final class DiskLruEditor: @unchecked Sendable {
    public let key: String
    let entry: Entry
    private let cache: DiskLruCache
    // Guarded by the cache's lock.
    var done = false
    var written: [Bool]
    var writtenLengths: [Int64?]
    /// The first failed value write; commit then aborts instead of publishing a partial value.
    var writeFailure: DiskLruError?
    /// With `Holding.perAccess`, an open editor keeps the directory lock until its commit or abort.
    var holdsAccess = false
    // Guarded by `writersLock`: writers handed out and not yet closed, closed at commit/abort.
    private let writersLock = NSLock()
    private var openWriters: [DiskLruValueWriter] = []

    init(cache: DiskLruCache, entry: Entry, valueCount: Int) {
        self.cache = cache
        self.entry = entry
        self.key = entry.key
        self.written = Array(repeating: false, count: valueCount)
        self.writtenLengths = Array(repeating: nil, count: valueCount)
    }

    /// Writes value `index` from memory, replacing anything written to it earlier in this edit.
    public func set(_ data: Data, at index: Int) throws(DiskLruError) {
        let writer = try writer(at: index)
        do throws(DiskLruError) {
            try writer.write(data)
            try writer.close()
        } catch {
            writer.closeQuietly()
            throw error
        }
    }

    /// Writes value `index` as the UTF-8 bytes of `string` (the references' `set(index, String)`).
    public func set(string: String, at index: Int) throws(DiskLruError) {
        try set(Data(string.utf8), at: index)
    }

    /// Opens value `index` for streaming writes (truncating it). Close the writer, or let commit close it.
    public func writer(at index: Int) throws(DiskLruError) -> DiskLruValueWriter {
        guard let dirtyPath = try cache.dirtyPathForWriting(self, index: index) else {
            return DiskLruValueWriter.discarding()
        }
        let fd = try FileIO.createTruncating(dirtyPath, directory: cache.path)
        let writer = DiskLruValueWriter(fd: fd, path: dirtyPath) { [weak self] length, failure in
            guard let self else { return }
            self.cache.recordWrite(self, index: index, length: length, failure: failure)
        }
        writersLock.withLock { openWriters.append(writer) }
        return writer
    }

    /// The value `index` as last published (before this edit), or nil if the entry was never published.
    public func publishedData(at index: Int) throws(DiskLruError) -> Data? {
        guard let cleanPath = try cache.publishedPath(self, index: index) else { return nil }
        guard let bytes = try FileIO.readFile(cleanPath) else { return nil }
        return Data(bytes)
    }

    /// `publishedData(at:)` as UTF-8 text (the references' `Editor.getString`), or nil if never published.
    public func publishedString(at index: Int) throws(DiskLruError) -> String? {
        try publishedData(at: index).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Publishes the written values. For a first creation every value must have been written; otherwise the
    /// edit is aborted and `DiskLruError.incompleteEntry` thrown.
    public func commit() throws(DiskLruError) {
        try closeWriters()
        try cache.finishEdit(self, success: true)
    }

    /// Drops the written values; an existing entry keeps its published ones.
    public func abort() throws(DiskLruError) {
        closeWritersQuietly()
        try cache.finishEdit(self, success: false)
    }

    /// Aborts unless already committed or aborted; never throws. Handy in `defer`.
    public func abortUnlessCommitted() {
        closeWritersQuietly()
        try? cache.finishEdit(self, success: false)
    }

    private func takeWriters() -> [DiskLruValueWriter] {
        writersLock.withLock {
            defer { openWriters.removeAll() }
            return openWriters
        }
    }

    private func closeWriters() throws(DiskLruError) {
        var firstError: DiskLruError?
        for writer in takeWriters() {
            do throws(DiskLruError) { try writer.close() } catch { firstError = firstError ?? error }
        }
        if let firstError { throw firstError }
    }

    private func closeWritersQuietly() {
        for writer in takeWriters() { writer.closeQuietly() }
    }
}
