import Foundation

/// Value 0 of a `DataCache` disk entry: whose bytes value 1 holds, fetched from where and when, with which caching
/// headers. JSON, documented in docs/disk-layout.md. The memory tier keeps the same record beside each value, so
/// both tiers judge freshness and revalidate alike (`CacheStrategy`, as for a thumbnail entry's `CacheMetadata`).
struct DataCacheRecord: StoredResponse, Codable, Sendable, Equatable {
    static let currentVersion = 1

    var version = DataCacheRecord.currentVersion
    /// The owner's `cacheKey`. The DiskLru key is its digest, so a load checks that this is the key asked for.
    var key: String
    /// The normalised URL fetched (credentials taken out).
    var url: String
    /// The kept caching headers, names lower-cased (`CacheMetadata.keptHeaders`).
    var headers: [String: String]
    /// When the request that produced `headers` was sent and its response received (seconds since 1970).
    var requestTime: Double
    var responseTime: Double
    /// The length of value 1, the body as received.
    var bytes: Int

    func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)) ?? Data()
    }

    /// nil for anything else: damaged, or written by another format version (then a miss, replaced by the next fetch).
    static func decode(_ data: Data) -> DataCacheRecord? {
        guard let record = try? JSONDecoder().decode(DataCacheRecord.self, from: data),
              record.version == currentVersion else { return nil }
        return record
    }
}
