import Foundation
import Testing
@testable import DiskLru

/// Our additions beyond the references: the directory lock and the durable mode.
@Suite struct LockAndDurabilityTests {
    @Test func secondOpenFailsFastWithAClearError() throws {
        let dir = TempDirectory()
        let first = try dir.open(options: DiskLruOptions())
        #expect(throws: DiskLruError.locked(directory: dir.url.standardizedFileURL.path)) {
            try dir.open(options: DiskLruOptions())
        }
        do {
            _ = try dir.open(options: DiskLruOptions())
        } catch {
            #expect("\(error)".contains("in use by another process"))
        }
        try first.close()
        let second = try dir.open(options: DiskLruOptions())
        try second.close()
    }

    @Test func waitingOpenTimesOut() throws {
        let dir = TempDirectory()
        let first = try dir.open(options: DiskLruOptions())
        let start = ContinuousClock.now
        #expect(throws: DiskLruError.lockTimeout(directory: dir.url.standardizedFileURL.path, seconds: 0.2)) {
            try dir.open(options: DiskLruOptions(locking: .wait(timeout: .milliseconds(200))))
        }
        #expect(ContinuousClock.now - start >= .milliseconds(200))
        try first.close()
    }

    @Test func waitingOpenSucceedsOnceReleased() throws {
        let dir = TempDirectory()
        let first = try dir.open(options: DiskLruOptions())
        try first.set("a", "a", "a")
        // A plain thread, not a Task: the waiting open blocks its thread, and the cooperative pool is small.
        let released = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            usleep(100_000)
            try? first.close()
            released.signal()
        }
        let second = try dir.open(options: DiskLruOptions(locking: .wait(timeout: .seconds(300))))  // a hang guard: the release comes after 100 ms, later on a busy machine
        #expect(try second.strings("a") == ["a", "a"])
        released.wait()
        try second.close()
    }

    @Test func lockIsKeptAcrossCorruptionWipe() throws {
        let dir = TempDirectory()
        dir.write("journal", "garbage\n")
        let cache = try dir.open(options: DiskLruOptions())
        #expect(cache.recoveredCorruption != nil)
        #expect(throws: DiskLruError.self) { try dir.open(options: DiskLruOptions()) }
        try cache.close()
    }

    @Test func durableModeWritesTheSameBytes() throws {
        let plain = TempDirectory(), durable = TempDirectory()
        for (dir, mode) in [(plain, DiskLruOptions.Durability.none), (durable, .fsync)] {
            let cache = try dir.open(options: DiskLruOptions(durability: mode, cleanup: .manual))
            try cache.set("a", "a", "bb")
            try cache.set("b", "ccc", "d")
            try cache.setPartialData([0: Data("x")], forKey: "a")
            _ = try cache.strings("b")
            try cache.remove("b")
            for _ in 0..<2000 { _ = try cache.strings("a") }
            try cache.performCleanup()
            try cache.set("c", "c", "c")
            try cache.close()
        }
        #expect(plain.read("journal") == durable.read("journal"))
        #expect(plain.names == durable.names)
        #expect(durable.journalBody() == ["CLEAN a 1 2", "DIRTY c", "CLEAN c 1 1"])
    }
}
