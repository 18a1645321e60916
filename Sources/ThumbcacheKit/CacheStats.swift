import Foundation

/// Hit and miss counters, kept in `stats.json` beside the entries so they add up across processes.
/// Only a process holding the cache directory's lock writes the file.
public struct CacheStats: Codable, Sendable, Equatable {
    public var memoryHits = 0
    public var diskHits = 0
    public var revalidated = 0
    public var misses = 0
    public var failures = 0
    public var bytesDownloaded: Int64 = 0

    public init() {}

    public var hits: Int { memoryHits + diskHits + revalidated }

    mutating func record(_ servedFrom: ServedFrom) {
        switch servedFrom {
        case .memory: memoryHits += 1
        case .disk: diskHits += 1
        case .revalidated: revalidated += 1
        case .network: misses += 1
        }
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
        sum.misses += rhs.misses
        sum.failures += rhs.failures
        sum.bytesDownloaded += rhs.bytesDownloaded
        return sum
    }
}
