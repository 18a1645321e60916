import Foundation
import Testing
@testable import DiskLru

/// The size bound: LRU eviction, when trims run, and entries under edit (spec §3.2–3.4).
@Suite struct EvictionTests {
    @Test func evictOnInsert() throws {
        let dir = TempDirectory()
        let cache = try dir.open(maxSize: 10)
        try cache.set("a", "a", "aaa")  // 4
        try cache.set("b", "bb", "bbbb")  // 6
        #expect(cache.size == 10)
        try cache.set("c", "c", "c")  // 12: a goes
        try cache.flush()
        #expect(cache.size == 8)
        #expect(cache.keys() == ["b", "c"])
        #expect(!dir.exists("a.0") && !dir.exists("a.1"))
        try cache.set("d", "d", "d")  // 10
        try cache.flush()
        #expect(cache.size == 10)
        try cache.set("e", "eeeeee", "eeee")  // 20: b, c, d go
        try cache.flush()
        #expect(cache.size == 10)
        #expect(cache.keys() == ["e"])
        try cache.close()
    }

    @Test func evictOnUpdate() throws {
        let dir = TempDirectory()
        let cache = try dir.open(maxSize: 10)
        try cache.set("a", "a", "aa")
        try cache.set("b", "b", "bb")
        try cache.set("c", "c", "cc")
        try cache.set("b", "b", "bbbb")  // size 11: a goes
        try cache.flush()
        #expect(cache.size == 8)
        #expect(cache.keys() == ["c", "b"])
        try cache.close()
    }

    @Test func readsProtectEntriesInTheCurrentSession() throws {
        let dir = TempDirectory()
        let cache = try dir.open(maxSize: 10)
        for key in ["a", "b", "c", "d", "e"] { try cache.set(key, key, key) }
        _ = try cache.strings("b")
        try cache.set("f", "f", "f")
        try cache.set("g", "g", "g")
        try cache.flush()
        #expect(cache.keys() == ["d", "e", "b", "f", "g"])
        #expect(cache.size == 10)
        try cache.close()
    }

    @Test func commitOverTheBoundOnlySchedulesTheTrim() throws {
        let dir = TempDirectory()
        let cache = try dir.open(maxSize: 10)
        try cache.set("a", "aaaaa", "aaaaa")
        try cache.set("b", "b", "b")
        #expect(cache.size == 12 && cache.isCleanupPending, "the caller does not pay for eviction")
        try cache.performCleanup()
        #expect(cache.size == 2 && !cache.isCleanupPending)
        try cache.close()
    }

    @Test func growAndShrinkMaxSize() throws {
        let dir = TempDirectory()
        let cache = try dir.open(maxSize: 10)
        try cache.set("a", "a", "aaa")
        try cache.set("b", "bb", "bbbb")
        cache.setMaxSize(20)
        try cache.set("c", "c", "c")
        try cache.flush()
        #expect(cache.size == 12)
        cache.setMaxSize(10)
        #expect(cache.isCleanupPending, "lowering the bound schedules a trim")
        try cache.performCleanup()
        #expect(cache.size == 8 && cache.keys() == ["b", "c"])
        try cache.close()
    }

    @Test(arguments: [("aaaaaa", "aaaaa"), ("aaaaaaaaaaa", "a")])
    func entryLargerThanMaxSizeIsEvicted(values: (String, String)) throws {
        let dir = TempDirectory()
        let cache = try dir.open(maxSize: 10)
        try cache.set("a", values.0, values.1)
        try cache.flush()
        #expect(try cache.snapshot(forKey: "a") == nil)
        #expect(cache.size == 0)
        try cache.close()
    }

    @Test func trimSkipsEntriesUnderEditWithoutHanging() throws {
        let dir = TempDirectory()
        let cache = try dir.open(maxSize: 100)
        try cache.set("a", "aaaaa", "aaaaa")
        try cache.set("b", "b", "b")
        let editor = try #require(try cache.edit("a"))
        cache.setMaxSize(8)
        try cache.flush()  // JakeWharton's trim never returns here
        // b is evicted, a is left alone while edited (OkHttp would kill the edit instead).
        #expect(cache.keys() == ["a"])
        #expect(cache.size == 10)
        try editor.set(Data("a"), at: 0)
        try editor.commit()
        #expect(cache.isCleanupPending, "the commit schedules another trim")
        try cache.performCleanup()
        #expect(cache.keys() == ["a"] && cache.size == 6)
        try cache.close()
    }

    @Test func backgroundCleanupTrimsOffTheCallersPath() throws {
        let dir = TempDirectory()
        let cache = try dir.open(maxSize: 100, options: DiskLruOptions(cleanup: .background))
        for i in 0..<30 { try cache.set("k\(i)", "0123456789", "x") }
        cache.waitForBackgroundCleanup()  // the queue, not a clock: a busy machine only makes it later
        #expect(cache.size <= 100)
        #expect(cache.keys().last == "k29")
        try cache.close()
    }

    @Test func backgroundCleanupCompactsTheJournal() throws {
        let dir = TempDirectory()
        let cache = try dir.open(options: DiskLruOptions(cleanup: .background))
        try cache.set("a", "a", "a")
        for _ in 0..<2500 { _ = try cache.strings("a") }
        cache.waitForBackgroundCleanup()
        try cache.flush()
        #expect(dir.journalBody().count < 600)
        try cache.close()
    }

    /// `.inline` trims before the commit returns, so the next call never sees the entry the trim evicts; the
    /// journal is the one manual cleanup after each commit writes (the same records, byte for byte).
    @Test func inlineCleanupTrimsBeforeTheCommitReturns() throws {
        let inline = TempDirectory(), manual = TempDirectory()
        let cache = try inline.open(maxSize: 10, options: DiskLruOptions(cleanup: .inline))
        let reference = try manual.open(maxSize: 10)
        for (key, a, b) in [("a", "a", "aaa"), ("b", "bb", "bbbb"), ("c", "c", "c"), ("d", "dddd", "ddd")] {
            try cache.set(key, a, b)
            #expect(cache.size <= 10 && !cache.isCleanupPending, "trimmed when \(key) was committed")
            try reference.set(key, a, b)
            try reference.performCleanup()
        }
        #expect(cache.keys() == ["c", "d"] && !inline.exists("a.0") && !inline.exists("b.0"))
        cache.setMaxSize(7)
        #expect(cache.keys() == ["d"] && cache.size == 7, "setMaxSize trims before it returns")
        reference.setMaxSize(7)
        try reference.performCleanup()
        try cache.close()
        try reference.close()
        #expect(inline.read(DiskLruCache.journalFileName) == manual.read(DiskLruCache.journalFileName))
    }
}
