import Foundation
import Testing
@testable import DiskLru

/// `Holding.perAccess`: caches in several processes (here: several cache objects, which flock tells apart
/// the same way) take turns on one directory and see each other's changes.
@Suite struct SharedAccessTests {
    let perAccess = DiskLruOptions(locking: .failFast, holding: .perAccess, cleanup: .manual)

    @Test func twoCachesOpenTogetherAndSeeEachOthersChanges() throws {
        let dir = TempDirectory()
        let first = try dir.open(options: perAccess)
        let second = try dir.open(options: perAccess)  // with Holding.lifetime this is DiskLruError.locked
        try first.set("a", "a0", "a1")
        #expect(try second.strings("a") == ["a0", "a1"], "the second reloads the journal the first appended to")
        try second.set("b", "b0", "b1")
        #expect(try second.remove("a"))
        #expect(try first.strings("a") == nil)
        #expect(try first.strings("b") == ["b0", "b1"])
        #expect(first.size == 4 && second.size == 4)
        try first.close()
        try second.close()
        let reopened = try dir.open()
        #expect(reopened.keys() == ["b"])
        try reopened.close()
    }

    @Test func anAccessOrAnOpenEditorKeepsTheDirectory() throws {
        let dir = TempDirectory()
        let first = try dir.open(options: perAccess)
        let second = try dir.open(options: perAccess)
        let path = dir.url.standardizedFileURL.path
        try first.beginAccess()
        #expect(throws: DiskLruError.locked(directory: path)) { try second.set("x", "1", "2") }
        first.endAccess()
        try second.set("x", "1", "2")

        let editor = try #require(try first.edit("y"))
        #expect(throws: DiskLruError.locked(directory: path)) { _ = try second.snapshot(forKey: "x") }
        try editor.set(Data("y0"), at: 0)
        try editor.set(Data("y1"), at: 1)
        try editor.commit()
        #expect(try second.strings("y") == ["y0", "y1"], "released at commit, and the CLEAN record is seen")
        try first.close()
        try second.close()
    }

    @Test func aCompactionByAnotherCacheIsReloaded() throws {
        let dir = TempDirectory()
        let first = try dir.open(options: perAccess)
        let second = try dir.open(options: perAccess)
        try first.set("a", "1", "2")
        #expect(try second.strings("a") == ["1", "2"])
        for round in 0..<(DiskLruCache.compactionThreshold + 10) { try first.set("a", "\(round)", "x") }
        try first.performCleanup()
        #expect(dir.journalBody().count == 1, "compacted to one line")
        #expect(try second.strings("a") == ["\(DiskLruCache.compactionThreshold + 9)", "x"])
        try second.set("b", "3", "4")
        #expect(try first.strings("b") == ["3", "4"], "the first appends to and reads the new journal, not the old one")
        try first.close()
        try second.close()
    }

    @Test func readOnlyOpenCreatesNothingAndWritesNothing() throws {
        let parent = TempDirectory()
        let missing = parent.url.appendingPathComponent("not-there")
        let empty = try DiskLruCache.openReadOnly(directory: missing, appVersion: 100, valueCount: 2)
        #expect(empty.keys().isEmpty && empty.size == 0)
        #expect(!FileManager.default.fileExists(atPath: missing.path), "a missing directory stays missing")

        let dir = TempDirectory()
        let writer = try dir.open()  // holds the lock for its lifetime: the reader needs none
        try writer.set("a", "aa", "a")
        try writer.flush()
        let before = try Data(contentsOf: dir.url.appendingPathComponent("journal"))
        let reader = try DiskLruCache.openReadOnly(directory: dir.url, appVersion: 100, valueCount: 2)
        #expect(try reader.strings("a") == ["aa", "a"])
        #expect(reader.size == 3)
        #expect(throws: DiskLruError.readOnly(directory: dir.url.standardizedFileURL.path)) { try reader.set("b", "b", "b") }
        #expect(throws: DiskLruError.readOnly(directory: dir.url.standardizedFileURL.path)) { try reader.remove("a") }
        dir.delete("a.1")
        #expect(try reader.snapshot(forKey: "a") == nil)
        #expect(dir.exists("a.0"), "a read-only cache deletes nothing, even for a broken entry")
        try reader.close()
        #expect(try Data(contentsOf: dir.url.appendingPathComponent("journal")) == before, "no READ record")
        try writer.close()
    }

    @Test func aLostJournalsValueFilesAreRemovedAndForeignFilesKept() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set("a", "aaaa", "aaaa")
        try cache.set("b", "bb", "bb")
        try cache.close()
        dir.delete(DiskLruCache.journalFileName)
        dir.write("c.0.tmp", "half")
        dir.write("notes.txt", "mine")
        dir.write("Photo.1", "not a key")
        let reopened = try dir.open()
        #expect(reopened.orphansRemoved == 5)
        #expect(dir.names == ["journal", "notes.txt", "Photo.1"])
        #expect(reopened.size == 0)
        try reopened.close()
    }

    @Test func aSoundJournalKeepsItsFilesAndACompactionSweepsOrphans() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set("a", "a", "a")
        dir.write("z.0", "left by someone")
        try cache.close()
        let reopened = try dir.open()
        #expect(reopened.orphansRemoved == 0, "an ordinary open does not list the directory")
        for _ in 0..<(DiskLruCache.compactionThreshold + 1) { _ = try reopened.snapshot(forKey: "a") }
        let editor = try #require(try reopened.edit("new"))
        try editor.set(Data("n"), at: 0)
        try reopened.performCleanup()
        #expect(reopened.orphansRemoved == 1)
        #expect(!dir.exists("z.0") && dir.exists("a.0") && dir.exists("new.0"), "an open edit keeps its files")
        try editor.set(Data("n"), at: 1)
        try editor.commit()
        #expect(try reopened.strings("new") == ["n", "n"])
        try reopened.close()
    }

    @Test func aCorruptJournalWipesOnlyOurFiles() throws {
        let dir = TempDirectory()
        dir.write("journal", header + "CLEAN k1 1 1\nBOGUS\n")
        dir.write("k1.0", "A")
        dir.write("k1.1", "B")
        dir.write("other.txt", "x")
        try FileManager.default.createDirectory(at: dir.url.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let cache = try dir.open()
        #expect(cache.recoveredCorruption != nil)
        #expect(dir.names == ["journal", "other.txt", "sub"])
        try cache.delete()
        #expect(dir.names == ["other.txt", "sub"], "delete() removes the cache's files only")
    }
}
