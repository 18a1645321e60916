import Foundation

/// The blocking calls of a cache, snapshot or editor as `async` ones, for callers on Swift's cooperative pool:
/// `try await cache.background.snapshot(forKey:)`, `try await snapshot.background.data(at:)`. Each runs the same
/// blocking call on a thread of `DiskLruIOPool.shared` (never the caller's thread, never the cooperative pool)
/// and resumes the caller with its result or its `DiskLruError`. The calls are the synchronous ones, so their
/// rules (locking, journal, atomicity) are the same; a cancelled caller still waits for the I/O to end.
///
/// A separate view rather than `async` overloads of the same names: in an `async` function Swift would pick the
/// overload and turn every existing synchronous call there into an error.
public struct DiskLruBackground<Base: Sendable>: Sendable {
    let base: Base
    let pool: DiskLruIOPool

    init(_ base: Base, pool: DiskLruIOPool = .shared) {
        self.base = base
        self.pool = pool
    }
}

extension DiskLruCache {
    /// This cache's blocking calls as `async` ones, their I/O on `DiskLruIOPool.shared`.
    public var background: DiskLruBackground<DiskLruCache> { DiskLruBackground(self) }
}

extension DiskLruSnapshot {
    /// This snapshot's reads as `async` ones, their I/O on `DiskLruIOPool.shared`.
    public var background: DiskLruBackground<DiskLruSnapshot> { DiskLruBackground(self) }
}

extension DiskLruEditor {
    /// This editor's writes and commit as `async` ones, their I/O on `DiskLruIOPool.shared`.
    public var background: DiskLruBackground<DiskLruEditor> { DiskLruBackground(self) }
}

extension DiskLruBackground where Base == DiskLruCache {
    /// `DiskLruCache.snapshot(forKey:)`: opens the entry's value files (and records the read in the journal).
    public func snapshot(forKey key: String) async throws(DiskLruError) -> DiskLruSnapshot? {
        let cache = base
        return try await pool.run { () throws(DiskLruError) in try cache.snapshot(forKey: key) }
    }

    /// `DiskLruCache.setData(_:forKey:)`: writes and publishes every value.
    public func setData(_ values: [Data], forKey key: String) async throws(DiskLruError) {
        let cache = base
        try await pool.run { () throws(DiskLruError) in try cache.setData(values, forKey: key) }
    }

    /// `DiskLruCache.setPartialData(_:forKey:)`: replaces some values of an existing entry.
    public func setPartialData(_ values: [Int: Data], forKey key: String) async throws(DiskLruError) {
        let cache = base
        try await pool.run { () throws(DiskLruError) in try cache.setPartialData(values, forKey: key) }
    }

    /// `DiskLruCache.edit(_:)`: writes the DIRTY record (flushed) before handing out the editor.
    public func edit(_ key: String) async throws(DiskLruError) -> DiskLruEditor? {
        let cache = base
        return try await pool.run { () throws(DiskLruError) in try cache.edit(key) }
    }

    /// `DiskLruCache.remove(_:)`.
    @discardableResult
    public func remove(_ key: String) async throws(DiskLruError) -> Bool {
        let cache = base
        return try await pool.run { () throws(DiskLruError) in try cache.remove(key) }
    }

    /// `DiskLruCache.flush()`.
    public func flush() async throws(DiskLruError) {
        let cache = base
        try await pool.run { () throws(DiskLruError) in try cache.flush() }
    }

    /// `DiskLruCache.close()`.
    public func close() async throws(DiskLruError) {
        let cache = base
        try await pool.run { () throws(DiskLruError) in try cache.close() }
    }
}

extension DiskLruBackground where Base == DiskLruSnapshot {
    /// `DiskLruSnapshot.data(at:)`: the whole value.
    public func data(at index: Int) async throws(DiskLruError) -> Data {
        let snapshot = base
        return try await pool.run { () throws(DiskLruError) in try snapshot.data(at: index) }
    }

    /// `DiskLruSnapshot.string(at:)`: the whole value as UTF-8 text.
    public func string(at index: Int) async throws(DiskLruError) -> String {
        let snapshot = base
        return try await pool.run { () throws(DiskLruError) in try snapshot.string(at: index) }
    }

    /// `DiskLruSnapshot.data(at:offset:count:)`: one range of the value.
    public func data(at index: Int, offset: Int64, count: Int) async throws(DiskLruError) -> Data {
        let snapshot = base
        return try await pool.run { () throws(DiskLruError) in try snapshot.data(at: index, offset: offset, count: count) }
    }
}

extension DiskLruBackground where Base == DiskLruEditor {
    /// `DiskLruEditor.set(_:at:)`: writes value `index`.
    public func set(_ data: Data, at index: Int) async throws(DiskLruError) {
        let editor = base
        try await pool.run { () throws(DiskLruError) in try editor.set(data, at: index) }
    }

    /// `DiskLruEditor.set(string:at:)`: writes value `index` as UTF-8.
    public func set(string: String, at index: Int) async throws(DiskLruError) {
        let editor = base
        try await pool.run { () throws(DiskLruError) in try editor.set(string: string, at: index) }
    }

    /// `DiskLruEditor.publishedData(at:)`: value `index` as last published.
    public func publishedData(at index: Int) async throws(DiskLruError) -> Data? {
        let editor = base
        return try await pool.run { () throws(DiskLruError) in try editor.publishedData(at: index) }
    }

    /// `DiskLruEditor.commit()`: publishes the written values (journal write and renames).
    public func commit() async throws(DiskLruError) {
        let editor = base
        try await pool.run { () throws(DiskLruError) in try editor.commit() }
    }

    /// `DiskLruEditor.abort()`.
    public func abort() async throws(DiskLruError) {
        let editor = base
        try await pool.run { () throws(DiskLruError) in try editor.abort() }
    }
}
