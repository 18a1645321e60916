// DataCache hits against the plain alternatives (scripts/bench-datacache.sh), one run, side by side:
//   memory: `fetchData` of 1,000 JSON owners all in memory, against a `[String: Profile]` behind a lock;
//   disk:   `fetchData` with a memory tier of one entry (so each call reads the disk tier, parses the stored
//           response's metadata and runs processData), against reading the same JSON files with FileManager and
//           decoding them.
// The origin is a loopback server of this process (OriginTestSupport), used only to fill the caches.
// Usage: datacache-bench [ROUNDS]   (each round asks every owner once; default 200 memory, 20 disk)
import Foundation
import OriginTestSupport
import ThumbcacheKit

struct Profile: Codable, Sendable {
    let id: Int
    let name: String
    let tags: [String]
}

struct User: CachedDataOwner {
    let id: Int
    let origin: String
    var cacheKey: String { "user-\(id)" }
    var url: URL { URL(string: "\(origin)/users/\(id).json")! }
    static func processData(_ data: Data) throws -> Profile? { try JSONDecoder().decode(Profile.self, from: data) }
}

func run() async throws {
    let owners = 1000
    let memoryRounds = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 200 : 200
    let diskRounds = max(1, memoryRounds / 10)
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("datacache-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch.appendingPathComponent("files"), withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }

    let origin = try OriginServer()
    var bodies: [Int: Data] = [:]
    for id in 0..<owners {
        let body = try JSONEncoder().encode(Profile(id: id, name: "user \(id)", tags: ["a", "b", "c", String(id)]))
        bodies[id] = body
        try body.write(to: scratch.appendingPathComponent("files/\(id).json"))
        origin.route("/users/\(id).json") { _ in
            .respond(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "max-age=3600")], body: body)
        }
    }
    let users = (0..<owners).map { User(id: $0, origin: origin.url("")) }
    var configuration = DataCacheConfiguration()
    configuration.sourcePolicy.allowLoopback = true
    configuration.memoryPressure = nil

    func rate(_ count: Int, _ body: () async throws -> Void) async rethrows -> Double {
        let start = ContinuousClock.now
        try await body()
        let elapsed = start.duration(to: .now)
        return Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    // Memory.
    let memory = DataCache<User>(maxCount: owners * 2, configuration: configuration)
    for user in users { _ = await memory.fetchData(for: user) }
    var misses = 0
    let cacheRate = await rate(owners * memoryRounds) {
        for _ in 0..<memoryRounds {
            for user in users {
                let (value, outcome) = await memory.fetchData(for: user)
                if value == nil { misses += 1 } else if case .cached = outcome {} else { misses += 1 }
            }
        }
    }
    let lock = NSLock()
    var dictionary: [String: Profile] = [:]
    for id in 0..<owners { dictionary["user-\(id)"] = try JSONDecoder().decode(Profile.self, from: bodies[id]!) }
    var found = 0
    let dictionaryRate = await rate(owners * memoryRounds) {
        for _ in 0..<memoryRounds {
            for user in users {
                if lock.withLock({ dictionary[user.cacheKey] }) != nil { found += 1 }
            }
        }
    }
    await memory.close()

    // Disk.
    let disk = try DataCache<User>(maxCount: 1, directory: scratch.appendingPathComponent("cache"), maxDiskBytes: 50_000_000,
                                   configuration: configuration)
    for user in users { _ = await disk.fetchData(for: user) }
    let diskRate = await rate(owners * diskRounds) {
        for _ in 0..<diskRounds {
            for user in users {
                let (value, outcome) = await disk.fetchData(for: user)
                if value == nil { misses += 1 } else if case .cached = outcome {} else { misses += 1 }
            }
        }
    }
    let fileRate = try await rate(owners * diskRounds) {
        for _ in 0..<diskRounds {
            for id in 0..<owners {
                guard let data = FileManager.default.contents(atPath: scratch.appendingPathComponent("files/\(id).json").path) else {
                    fatalError("file \(id) missing")
                }
                _ = try JSONDecoder().decode(Profile.self, from: data)
            }
        }
    }
    await disk.close()
    origin.shutdown()

    print("DataCache, \(owners) JSON owners (\(bodies[0]!.count)-\(bodies[owners - 1]!.count) bytes), origin requests \((0..<owners).reduce(0) { $0 + origin.requestCount("/users/\($1).json") })")
    print(String(format: "memory hits: DataCache %.0f/s, [String: Profile] behind a lock %.0f/s (%.3fx)",
                 cacheRate, dictionaryRate, cacheRate / dictionaryRate))
    print(String(format: "disk hits:   DataCache %.0f/s, FileManager read + JSONDecoder %.0f/s (%.2fx)",
                 diskRate, fileRate, diskRate / fileRate))
    print("answers that were not CACHED: \(misses)")
}

try await run()
