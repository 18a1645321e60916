import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import DiskLru

/// `snapshot(forKey:opening:)`: a use like `snapshot(forKey:)` that opens only the values asked for, chosen by
/// the entry's sequence number; and sequence numbers that name one state of an entry.
@Suite struct PartialSnapshotTests {
    /// A cache in a new directory holding `k` with the values `a` and `b` (the directory must outlive the cache).
    static func cache(_ dir: TempDirectory, k a: String, _ b: String) throws -> DiskLruCache {
        let cache = try dir.open()
        try cache.set("k", a, b)
        return cache
    }

    @Test func onlyTheValuesAskedForAreOpenedAndRead() throws {
        let dir = TempDirectory()
        let cache = try Self.cache(dir, k: "metadata", "thumbnails")
        var seen: Int64?
        let snapshot = try #require(try cache.snapshot(forKey: "k", opening: { sequenceNumber in
            seen = sequenceNumber
            return [1]
        }))
        #expect(seen == snapshot.sequenceNumber)
        #expect(try snapshot.data(at: 1) == Data("thumbnails"))
        #expect(try snapshot.data(at: 1, offset: 5, count: 5) == Data("nails"))
        #expect(try snapshot.data(at: 1, offset: 8, count: 10) == Data("ls"), "fewer bytes where the value ends")
        #expect(throws: DiskLruError.invalidArgument("value 0 was not opened by this snapshot")) { try snapshot.data(at: 0) }
        #expect(snapshot.length(at: 0) == 8, "every recorded length is known")
        snapshot.close()
        #expect(throws: DiskLruError.snapshotClosed) { try snapshot.data(at: 1) }
        #expect(throws: DiskLruError.invalidArgument("value index 2 is outside 0..<2")) {
            _ = try cache.snapshot(forKey: "k", opening: { _ in [2] })
        }
        try cache.close()
    }

    /// What it opened is the state it was taken of: a later commit renames a new file over the value.
    @Test func aPartialSnapshotKeepsReadingItsOwnState() throws {
        let dir = TempDirectory()
        let cache = try Self.cache(dir, k: "a0", "a1")
        let before = try #require(try cache.snapshot(forKey: "k", opening: { _ in [1] }))
        try cache.setPartialData([1: Data("b1")], forKey: "k")
        #expect(try before.data(at: 1) == Data("a1"))
        let after = try #require(try cache.snapshot(forKey: "k", opening: { _ in [1] }))
        #expect(try after.data(at: 1) == Data("b1"))
        #expect(after.sequenceNumber != before.sequenceNumber, "each commit is a new state")
        #expect(try before.edit() == nil, "a snapshot of an older state cannot edit")
        before.close()
        after.close()
        try cache.close()
    }

    /// `dataIfResident` reads what the page cache holds and, for bytes it does not hold, answers nil at once
    /// instead of waiting for the disk. Which pages are resident is the kernel's to say: `mincore` is asked.
    @Test func aResidentReadNeverWaitsForTheDisk() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        let value = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0) })
        try cache.setData([Data("m"), value], forKey: "k")
        let snapshot = try #require(try cache.snapshot(forKey: "k", opening: { _ in [1] }))
        defer { snapshot.close() }
        #expect(try snapshot.dataIfResident(at: 1, offset: 100, count: 5000) == value[100..<5100], "just written: in memory")
        #expect(try snapshot.dataIfResident(at: 1, offset: 19_990, count: 100) == value[19_990...], "fewer where the value ends")

        // Written back and dropped from the page cache (on a disk filesystem; tmpfs keeps its pages).
        let fd = open(dir.file("k.1"), O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(fsync(fd) == 0 && posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_DONTNEED)) == 0)
        let mapped = try #require(mmap(nil, value.count, PROT_READ, MAP_SHARED, fd, 0))
        try #require(mapped != UnsafeMutableRawPointer(bitPattern: -1), "mmap failed")
        defer { munmap(mapped, value.count) }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        var pages = [UInt8](repeating: 0, count: (value.count + pageSize - 1) / pageSize)
        #expect(mincore(mapped, value.count, &pages) == 0)
        let resident = pages.allSatisfy { $0 & 1 == 1 }
        let read = try snapshot.dataIfResident(at: 1, offset: 0, count: value.count)
        if resident {
            #expect(read == value)
        } else {
            // Not resident: nil, or every byte right. `RWF_NOWAIT` does not wait for the disk, but it starts the
            // readahead, and a fast device can finish it before the kernel looks again (a busy run of the test
            // command saw that): the call promises not to block, not to fail.
            #expect(read == nil || read == value, "nothing resident: nil or the value, never other bytes")
        }
        #expect(try snapshot.data(at: 1) == value, "a plain read waits for the disk and gets every byte")
        #expect(try snapshot.dataIfResident(at: 1, offset: 0, count: value.count) == value, "now read in")
        try cache.close()
    }

    /// A value not opened is not looked at: its file may be gone (a full snapshot then drops the entry).
    @Test func aMissingValueNotOpenedGoesUnnoticed() throws {
        let dir = TempDirectory()
        let cache = try Self.cache(dir, k: "a0", "a1")
        dir.delete("k.0")
        let partial = try #require(try cache.snapshot(forKey: "k", opening: { _ in [1] }))
        #expect(try partial.data(at: 1) == Data("a1"))
        partial.close()
        #expect(try cache.snapshot(forKey: "k", opening: { _ in [0, 1] }) == nil)
        #expect(!cache.contains("k"), "a value file gone: the entry is dropped, as by snapshot(forKey:)")
        try cache.close()
    }

    /// It is a use like any read: a READ record and the LRU order, replayed by the next open.
    @Test func aPartialSnapshotIsARead() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set("a", "a0", "a1")
        try cache.set("b", "b0", "b1")
        try #require(try cache.snapshot(forKey: "a", opening: { _ in [1] })).close()
        try cache.flush()
        #expect(dir.journalBody().suffix(1) == ["READ a"])
        #expect(cache.keys() == ["b", "a"])
        try cache.close()
        let reopened = try dir.open()
        #expect(reopened.keys() == ["b", "a"])
        try reopened.close()
    }

    /// Entries replayed from the journal share sequence number 0 at an open. After another process's change
    /// reloads the journal, each gets a number not used before, so a reader that remembered what a value held
    /// in an earlier state never mistakes the new state for it.
    @Test func aReloadGivesEveryEntryANewSequenceNumber() throws {
        let dir = TempDirectory()
        let options = DiskLruOptions(locking: .failFast, holding: .perAccess, cleanup: .manual)
        try Self.cache(dir, k: "a0", "a1").close()
        let first = try dir.open(options: options)
        let second = try dir.open(options: options)
        let before = try #require(try first.snapshot(forKey: "k"))
        try second.setPartialData([0: Data("b0")], forKey: "k")  // on a fresh open: sequence number 1 in second
        var seen: Int64?
        let after = try #require(try first.snapshot(forKey: "k", opening: { sequenceNumber in
            seen = sequenceNumber
            return [0]
        }))
        #expect(try after.data(at: 0) == Data("b0"))
        #expect(seen == after.sequenceNumber && after.sequenceNumber != before.sequenceNumber)
        #expect(try before.data(at: 0) == Data("a0"), "the older snapshot still reads its own state")
        before.close()
        after.close()
        try first.close()
        try second.close()
    }
}
