import Foundation
import Testing
@testable import DiskLru

/// The `async` variants (`cache.background`, `snapshot.background`, `editor.background`): the same calls, their
/// I/O on `DiskLruIOPool`'s threads.
@Suite struct BackgroundIOTests {
    @Test func writesAndReadsRoundTripThroughThePool() async throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try await cache.background.setData([Data("head".utf8), Data("body".utf8)], forKey: "k1")
        let snapshot = try #require(try await cache.background.snapshot(forKey: "k1"))
        #expect(try await snapshot.background.string(at: 0) == "head")
        #expect(try await snapshot.background.data(at: 1) == Data("body".utf8))
        #expect(try await snapshot.background.data(at: 1, offset: 1, count: 2) == Data("od".utf8))

        // A later partial update does not change the snapshot taken before it.
        try await cache.background.setPartialData([1: Data("new body".utf8)], forKey: "k1")
        #expect(try await snapshot.background.data(at: 1) == Data("body".utf8))
        let updated = try #require(try await cache.background.snapshot(forKey: "k1"))
        #expect(try await updated.background.string(at: 1) == "new body")
        #expect(try await updated.background.string(at: 0) == "head", "the value not given keeps its bytes")

        #expect(try await cache.background.remove("k1"))
        #expect(try await cache.background.snapshot(forKey: "k1") == nil)
        try await cache.background.close()
        #expect(cache.isClosed)
    }

    @Test func anEditorCommitsThroughThePool() async throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        let editor = try #require(try await cache.background.edit("k2"))
        try await editor.background.set(Data("a".utf8), at: 0)
        try await editor.background.set(string: "bb", at: 1)
        #expect(try await editor.background.publishedData(at: 0) == nil, "never published")
        try await editor.background.commit()
        #expect(cache.size == 3)
        let snapshot = try #require(try cache.snapshot(forKey: "k2"))
        #expect(try snapshot.string(at: 1) == "bb")

        let second = try #require(try await cache.background.edit("k2"))
        try await second.background.set(Data("zzz".utf8), at: 0)
        try await second.background.abort()
        #expect(try cache.snapshot(forKey: "k2")?.string(at: 0) == "a", "an aborted edit keeps the published value")
    }

    @Test func errorsArriveTyped() async throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        await #expect(throws: DiskLruError.entryNotFound(key: "absent")) {
            try await cache.background.setPartialData([0: Data()], forKey: "absent")
        }
        await #expect(throws: DiskLruError.invalidKey("Not A Key")) { try await cache.background.snapshot(forKey: "Not A Key") }
        let editor = try #require(try cache.edit("k3"))
        try editor.set(Data("x".utf8), at: 0)
        await #expect(throws: DiskLruError.incompleteEntry(key: "k3", missingIndex: 1)) { try await editor.background.commit() }
    }

    @Test func theWorkRunsOnThePoolsThreadsNotTheCallers() async throws {
        let onPool = try await DiskLruIOPool.shared.run { () throws(DiskLruError) in DiskLruIOPool.shared.ownsCurrentThread }
        #expect(onPool)
        #expect(!DiskLruIOPool.shared.ownsCurrentThread, "the caller's own thread is not the pool's")
    }

    /// Far more calls than the pool has threads: they queue, and every one completes with its own bytes.
    @Test func aBurstLargerThanThePoolCompletes() async throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        let keys = (0..<64).map { "key\($0)" }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for key in keys {
                group.addTask { try await cache.background.setData([Data(key.utf8), Data("v".utf8)], forKey: key) }
            }
            try await group.waitForAll()
        }
        let read = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for key in keys {
                group.addTask {
                    let snapshot = try await cache.background.snapshot(forKey: key)
                    return (key, try await snapshot?.background.string(at: 0) ?? "missing")
                }
            }
            return try await group.reduce(into: [String: String]()) { $0[$1.0] = $1.1 }
        }
        #expect(read == Dictionary(uniqueKeysWithValues: keys.map { ($0, $0) }))
        #expect(DiskLruIOPool.shared.threadCount == 4)
    }
}
