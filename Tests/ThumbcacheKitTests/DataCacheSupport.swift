import Foundation
import OriginTestSupport
@testable import ThumbcacheKit

/// What the DataCache tests' owners turn JSON into.
struct TestProfile: Codable, Sendable, Equatable {
    var name: String
}

/// A user whose profile is JSON at `url`, cached under `cacheKey`. Counts its `processData` calls per body:
/// every test serves bodies of its own (a UUID in them), so parallel tests never share a count.
struct ProfileOwner: CachedDataOwner {
    let cacheKey: String
    let url: URL

    static let processed = Locked<[Data: Int]>([:])

    static func processData(_ data: Data) throws -> TestProfile? {
        processed.withLock { $0[data, default: 0] += 1 }
        if data == Data("null".utf8) { return nil }
        return try JSONDecoder().decode(TestProfile.self, from: data)
    }

    static func processCount(_ body: Data) -> Int { processed.withLock { $0[body] ?? 0 } }
}

/// Builders for the DataCache tests: owners on a local origin, bodies, replies.
enum DataCacheFixture {
    /// Loopback allowed explicitly: the cache's default refuses it, as a server's should.
    static var loopback: DataCacheConfiguration {
        var configuration = DataCacheConfiguration()
        configuration.sourcePolicy = SourcePolicy(allowLoopback: true, allowPrivate: false)
        // The machine's memory pressure must not evict what a test asserts on (MemoryPressureMonitorTests drive it).
        configuration.memoryPressure = nil
        return configuration
    }

    static func owner(_ key: String, _ server: OriginServer, _ path: String) -> ProfileOwner {
        ProfileOwner(cacheKey: key, url: URL(string: server.url(path))!)
    }

    /// A JSON profile no other test serves.
    static func body(_ name: String = "user") -> Data {
        Data(#"{"name":"\#(name)-\#(UUID().uuidString)"}"#.utf8)
    }

    static func profile(_ body: Data) -> TestProfile {
        try! JSONDecoder().decode(TestProfile.self, from: body)
    }

    static func json(_ body: Data, _ headers: [(String, String)] = [("Cache-Control", "max-age=3600")]) -> OriginServer.Reply {
        .respond(status: 200, headers: [("Content-Type", "application/json")] + headers, body: body)
    }

    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("datacache-tests-\(UUID().uuidString)")
    }
}
