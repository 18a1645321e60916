import Foundation
import Testing
@testable import DiskLru
@testable import disklru_torture

/// Many tasks writing, reading, removing and iterating at once, with eviction running in the background.
/// Run under `swift test --sanitize=thread` to check for data races.
@Suite struct ConcurrencyTests {
    @Test func concurrentReadersAndWritersSeeOnlyWholeEntries() async throws {
        let dir = TempDirectory()
        let cache = try DiskLruCache(directory: dir.url, appVersion: 1, valueCount: 2, maxSize: 300_000)
        let failures = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var failures = 0
                    for step in 0..<150 {
                        let key = "key-\((worker * 7 + step) % 12)"
                        let generation = worker * 1000 + step
                        switch step % 5 {
                        case 0, 1:
                            try? cache.setData(EntryContent.values(key: key, generation: generation), forKey: key)
                        case 2:
                            if let snapshot = try cache.snapshot(forKey: key) {
                                let header = String(decoding: try snapshot.data(at: 0).prefix(40), as: UTF8.self)
                                let generation = Int(header.split(separator: ":")[1])!
                                if try snapshot.data(at: 1) != EntryContent.body(key: key, generation: generation) {
                                    failures += 1
                                }
                                snapshot.close()
                            }
                        case 3:
                            if step % 15 == 3 { try cache.remove(key) } else {
                                let values = EntryContent.values(key: key, generation: generation)
                                try? cache.setPartialData([0: values[0], 1: values[1]], forKey: key)
                            }
                        default:
                            for snapshot in cache.snapshots() { snapshot.close() }
                        }
                    }
                    return failures
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(failures == 0)
        try cache.flush()
        #expect(cache.size <= 300_000)
        try cache.close()

        let reopened = try DiskLruCache(directory: dir.url, appVersion: 1, valueCount: 2, maxSize: 300_000)
        var total: Int64 = 0
        for snapshot in reopened.snapshots() {
            total += Int64(try snapshot.data(at: 0).count + snapshot.data(at: 1).count)
            snapshot.close()
        }
        #expect(total == reopened.size, "recorded lengths match the files")
        try reopened.close()
    }
}
