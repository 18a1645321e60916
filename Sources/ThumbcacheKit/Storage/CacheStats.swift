import Foundation

/// Hit and miss counters, kept in `stats.json` beside the entries so they add up across processes.
/// Only a process holding the cache directory's lock writes the file.
public struct CacheStats: Codable, Sendable, Equatable {
    public var memoryHits = 0
    public var diskHits = 0
    public var revalidated = 0
    /// Stale copies served because the origin failed (stale-if-error).
    public var staleServed = 0
    public var misses = 0
    public var failures = 0
    public var bytesDownloaded: Int64 = 0

    public init() {}

    public var hits: Int { memoryHits + diskHits + revalidated + staleServed }

    mutating func record(_ servedFrom: ServedFrom) {
        switch servedFrom {
        case .memory: memoryHits += 1
        case .disk: diskHits += 1
        case .revalidated: revalidated += 1
        case .network: misses += 1
        case .stale: staleServed += 1
        }
    }

    enum CodingKeys: String, CodingKey {
        case memoryHits, diskHits, revalidated, staleServed, misses, failures, bytesDownloaded
    }

    /// Every field is optional, so a stats.json written before a counter existed still adds up.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        memoryHits = try container.decodeIfPresent(Int.self, forKey: .memoryHits) ?? 0
        diskHits = try container.decodeIfPresent(Int.self, forKey: .diskHits) ?? 0
        revalidated = try container.decodeIfPresent(Int.self, forKey: .revalidated) ?? 0
        staleServed = try container.decodeIfPresent(Int.self, forKey: .staleServed) ?? 0
        misses = try container.decodeIfPresent(Int.self, forKey: .misses) ?? 0
        failures = try container.decodeIfPresent(Int.self, forKey: .failures) ?? 0
        bytesDownloaded = try container.decodeIfPresent(Int64.self, forKey: .bytesDownloaded) ?? 0
    }

    static func load(from url: URL) -> CacheStats {
        (try? Data(contentsOf: url)).flatMap { try? JSONDecoder().decode(CacheStats.self, from: $0) } ?? CacheStats()
    }

    func save(to url: URL) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        guard let data = try? encoder.encode(self) else { return }
        try? AtomicFile.replace(url.path, with: data)
    }

    static func + (lhs: CacheStats, rhs: CacheStats) -> CacheStats {
        var sum = lhs
        sum.memoryHits += rhs.memoryHits
        sum.diskHits += rhs.diskHits
        sum.revalidated += rhs.revalidated
        sum.staleServed += rhs.staleServed
        sum.misses += rhs.misses
        sum.failures += rhs.failures
        sum.bytesDownloaded += rhs.bytesDownloaded
        return sum
    }
}
