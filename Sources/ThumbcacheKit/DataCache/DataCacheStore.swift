import DiskLru
import Foundation

/// A `DataCache`'s disk tier: one DiskLru entry per owner key, values [record JSON, body as received]. The
/// DiskLru key is the SHA-256 of the owner's key (any text fits; DiskLru keys are `[a-z0-9_-]{1,120}`). Reads and
/// writes block the calling thread for the file I/O; the values are one response each, so they are short.
final class DataCacheStore: Sendable {
    static let appVersion = 1
    static let recordIndex = 0
    static let bodyIndex = 1

    let cache: DiskLruCache

    init(directory: URL, maxBytes: Int) throws(DataCacheError) {
        try DataCacheDirectory.prepare(directory)
        do {
            cache = try DiskLruCache(directory: directory, appVersion: Self.appVersion, valueCount: 2, maxSize: Int64(max(1, maxBytes)))
        } catch {
            throw .disk(directory: directory.path, error)
        }
    }

    /// What is stored for one key.
    struct Stored: Sendable {
        let record: DataCacheRecord
        let body: Data
    }

    static func diskKey(_ key: String) -> String { SHA256Digest.hex(key) }

    /// The entry of `key`, or nil: none, another key's (same digest), another format's, or damaged.
    func load(_ key: String) throws(DiskLruError) -> Stored? {
        guard let snapshot = try cache.snapshot(forKey: Self.diskKey(key)) else { return nil }
        defer { snapshot.close() }
        guard let record = try DataCacheRecord.decode(snapshot.data(at: Self.recordIndex)), record.key == key,
              snapshot.length(at: Self.bodyIndex) == Int64(record.bytes) else { return nil }
        return Stored(record: record, body: try snapshot.data(at: Self.bodyIndex))
    }

    func save(_ record: DataCacheRecord, body: Data) throws(DiskLruError) {
        try cache.setData([record.encoded(), body], forKey: Self.diskKey(record.key))
    }

    /// A revalidated record, the body untouched. An entry evicted meanwhile stays gone.
    func update(_ record: DataCacheRecord) throws(DiskLruError) {
        do {
            try cache.setPartialData([Self.recordIndex: record.encoded()], forKey: Self.diskKey(record.key))
        } catch .entryNotFound {
            return
        }
    }

    func remove(_ key: String) throws(DiskLruError) {
        _ = try cache.remove(Self.diskKey(key))
    }
}
