import Foundation
import Testing
@testable import DiskLru

/// The editor, snapshot and convenience API (spec §3.5–3.11 plus the Swift port's setData/setPartialData).
@Suite struct EditingTests {
    @Test(arguments: ["my key", "my\nkey", "my\rkey", "a/b", "\u{2603}", String(repeating: "a", count: 121), "", "A", "a.b"])
    func invalidKeysAreRejectedWithTheRule(key: String) throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        #expect(throws: DiskLruError.invalidKey(key)) { try cache.edit(key) }
        #expect(throws: DiskLruError.invalidKey(key)) { try cache.snapshot(forKey: key) }
        #expect(throws: DiskLruError.invalidKey(key)) { try cache.remove(key) }
        #expect(DiskLruError.invalidKey(key).description == "keys must match regex [a-z0-9_-]{1,120}: \"\(key)\"")
        try cache.close()
    }

    @Test(arguments: [String(repeating: "1", count: 120), "abcdefghijklmnopqrstuvwxyz_0123456789", "-20384573948576"])
    func validKeysAreAccepted(key: String) throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set(key, "a", "b")
        #expect(try cache.strings(key) == ["a", "b"])
        try cache.close()
    }

    @Test func valuesAreWrittenAndReadAsStrings() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        let editor = try #require(try cache.edit("k"))
        #expect(try editor.publishedString(at: 0) == nil, "never published")
        try editor.set(string: "☃ café", at: 0)
        try editor.set(string: "", at: 1)
        try editor.commit()
        let snapshot = try #require(try cache.snapshot(forKey: "k"))
        #expect(try snapshot.string(at: 0) == "☃ café" && snapshot.length(at: 0) == Int64("☃ café".utf8.count))
        #expect(try snapshot.string(at: 1) == "")
        snapshot.close()
        let update = try #require(try cache.edit("k"))
        try update.set(Data([0x61, 0xFF, 0x62]), at: 1)
        #expect(try update.publishedString(at: 0) == "☃ café")
        try update.commit()
        let updated = try #require(try cache.snapshot(forKey: "k"))
        #expect(try updated.string(at: 1) == "a\u{FFFD}b", "bytes that are not UTF-8 read as U+FFFD")
        updated.close()
        try cache.close()
    }

    @Test func parametersAreValidated() throws {
        let dir = TempDirectory()
        #expect(throws: DiskLruError.invalidArgument("maxSize <= 0")) {
            try DiskLruCache(directory: dir.url, appVersion: 1, valueCount: 2, maxSize: 0)
        }
        #expect(throws: DiskLruError.invalidArgument("valueCount <= 0")) {
            try DiskLruCache(directory: dir.url, appVersion: 1, valueCount: 0, maxSize: 10)
        }
        let cache = try dir.open()
        let editor = try #require(try cache.edit("k"))
        #expect(throws: DiskLruError.self) { try editor.set(Data("x"), at: 2) }
        #expect(throws: DiskLruError.self) { try cache.setData([Data("x")], forKey: "k2") }
        #expect(throws: DiskLruError.self) { try cache.setPartialData([5: Data("x")], forKey: "k2") }
        try editor.abort()
        try cache.close()
    }

    @Test func secondEditOfSameKeyIsNil() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        let editor = try #require(try cache.edit("k1"))
        #expect(try cache.edit("k1") == nil)
        #expect(throws: DiskLruError.editInProgress(key: "k1")) { try cache.set("k1", "a", "b") }
        try editor.abort()
        #expect(try cache.edit("k1") != nil)
        try cache.close()
    }

    @Test func firstCreationMustWriteEveryValue() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        let editor = try #require(try cache.edit("k1"))
        try editor.set(Data("A"), at: 1)
        #expect(throws: DiskLruError.incompleteEntry(key: "k1", missingIndex: 0)) { try editor.commit() }
        #expect(dir.names == ["journal"])
        #expect(try cache.snapshot(forKey: "k1") == nil)
        try cache.set("k1", "A", "B")
        #expect(try cache.strings("k1") == ["A", "B"])
        try cache.close()
        #expect(dir.journalBody() == ["DIRTY k1", "REMOVE k1", "DIRTY k1", "CLEAN k1 1 1", "READ k1"])
    }

    @Test func finishedEditorRefusesEverything() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        let committed = try #require(try cache.edit("k1"))
        try committed.set(Data("A"), at: 0)
        try committed.set(Data("B"), at: 1)
        try committed.commit()
        let aborted = try #require(try cache.edit("k2"))
        try aborted.abort()
        for editor in [committed, aborted] {
            #expect(throws: DiskLruError.editorFinished) { try editor.set(Data("x"), at: 0) }
            #expect(throws: DiskLruError.editorFinished) { try editor.writer(at: 0) }
            #expect(throws: DiskLruError.editorFinished) { try editor.publishedData(at: 0) }
            #expect(throws: DiskLruError.editorFinished) { try editor.commit() }
            #expect(throws: DiskLruError.editorFinished) { try editor.abort() }
            editor.abortUnlessCommitted()  // quiet no-op
        }
        #expect(try cache.strings("k1") == ["A", "B"])
        try cache.close()
    }

    @Test func setDataAndSetPartialData() throws {
        let dir = TempDirectory()
        let cache = try DiskLruCache.open(directory: dir.url, appVersion: 1, valueCount: 3, maxSize: 1000,
                                          options: DiskLruOptions(cleanup: .manual))
        #expect(throws: DiskLruError.entryNotFound(key: "k")) { try cache.setPartialData([0: Data("x")], forKey: "k") }
        #expect(cache.keys().isEmpty && !cache.contains("k"))
        try cache.setData([Data("meta"), Data("original"), Data("t64")], forKey: "k")
        try cache.setPartialData([2: Data("t64-v2"), 0: Data("meta2")], forKey: "k")
        let snapshot = try #require(try cache.snapshot(forKey: "k"))
        #expect(try snapshot.data(at: 0) == Data("meta2"))
        #expect(try snapshot.data(at: 1) == Data("original"))
        #expect(try snapshot.data(at: 2) == Data("t64-v2"))
        #expect(cache.size == 5 + 8 + 6)
        snapshot.close()
        #expect(cache.contains("k"))
        try cache.close()
    }

    @Test func snapshotIsIsolatedFromLaterUpdatesAndRemoval() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set("k1", "AAAA", "BBBB")
        let before = try #require(try cache.snapshot(forKey: "k1"))
        let reader = try before.reader(at: 1)
        #expect(try reader.read(upToCount: 2) == Data("BB"))
        try cache.set("k1", "CCCC", "DDDD")
        #expect(try reader.read(upToCount: 10) == Data("BB"))
        #expect(try reader.read(upToCount: 10) == nil)
        #expect(try before.data(at: 0) == Data("AAAA"))
        try cache.remove("k1")
        #expect(try before.data(at: 1) == Data("BBBB"))
        #expect(before.length(at: 0) == 4)
        before.close()
        #expect(throws: DiskLruError.snapshotClosed) { try before.data(at: 0) }
        try cache.close()
    }

    @Test func evictAllKeepsOpenSnapshotsReadable() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set("a", "a", "aa")
        try cache.set("b", "b", "bb")
        let snapshot = try #require(try cache.snapshot(forKey: "a"))
        try cache.evictAll()
        #expect(cache.size == 0 && cache.keys().isEmpty)
        #expect(dir.names == ["journal"])
        #expect(try snapshot.data(at: 1) == Data("aa"))
        #expect(try snapshot.edit() == nil)
        try cache.close()
    }

    @Test func removeDetachesAnOpenEdit() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set("a", "a", "a")
        let editor = try #require(try cache.edit("a"))
        let writer = try editor.writer(at: 0)
        #expect(try cache.remove("a"))
        try writer.write(Data("zzz"))
        try editor.set(Data("b"), at: 1)
        try editor.commit()
        #expect(try cache.snapshot(forKey: "a") == nil)
        #expect(cache.size == 0)
        #expect(dir.names == ["journal"])
        try cache.close()
    }

    @Test func evictAllDuringFirstCreationStoresNothing() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        let editor = try #require(try cache.edit("k1"))
        try editor.set(Data("a"), at: 0)
        try cache.evictAll()
        try editor.set(Data("b"), at: 1)
        try editor.commit()
        #expect(try cache.snapshot(forKey: "k1") == nil)
        #expect(cache.size == 0)
        // A new creation after the detached one is unaffected by it.
        try cache.set("k1", "xy", "z")
        #expect(cache.size == 3)
        try cache.close()
    }

    @Test func snapshotEditDetectsStaleness() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set("k1", "a", "a")
        let current = try #require(try cache.snapshot(forKey: "k1"))
        let first = try #require(try current.edit())
        try first.abort()  // an abort does not make the snapshot stale
        let second = try #require(try current.edit())
        try second.set(Data("b"), at: 0)
        try second.commit()
        #expect(try current.edit() == nil, "changed since the snapshot")
        let fresh = try #require(try cache.snapshot(forKey: "k1"))
        try cache.remove("k1")
        #expect(try fresh.edit() == nil, "removed since the snapshot")
        try cache.set("k1", "c", "c")
        #expect(try fresh.edit() == nil, "re-created since the snapshot")
        try cache.close()
    }

    @Test func staleSnapshotIsDetectedAcrossReopen() throws {
        let dir = TempDirectory()
        let first = try dir.open()
        try first.set("a", "a", "a")
        try first.close()
        let cache = try dir.open()
        let snapshot = try #require(try cache.snapshot(forKey: "a"))
        try cache.set("a", "b", "b")  // the first commit of the session
        // Both references hand out an editor here: their sequence numbers restart at 0 on reopen.
        #expect(try snapshot.edit() == nil)
        try cache.close()
    }

    @Test func snapshotsIterateInLruOrderWithoutTouchingEdits() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set("a", "a", "1")
        try cache.set("b", "b", "2")
        try cache.set("c", "c", "3")
        _ = try cache.strings("a")
        let creating = try #require(try cache.edit("new"))
        try creating.set(Data("n"), at: 0)
        let updating = try #require(try cache.edit("b"))
        try updating.set(Data("B"), at: 0)
        var seen: [String: String] = [:]
        var order: [String] = []
        for snapshot in cache.snapshots() {
            order.append(snapshot.key)
            seen[snapshot.key] = String(decoding: try snapshot.data(at: 0), as: UTF8.self)
            snapshot.close()
        }
        #expect(order == ["c", "a", "b"])
        #expect(seen["b"] == "b", "an entry under update shows its published values")
        // Iteration neither killed the creation nor wrote READ records or changed the order.
        try creating.set(Data("n"), at: 1)
        try creating.commit()
        try updating.commit()
        #expect(try cache.strings("new") == ["n", "n"])
        try cache.close()
        #expect(!dir.journalBody().contains("READ c"))
    }

    @Test func iterationSkipsRemovedAndOmitsAdded() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set("a", "a", "a")
        try cache.set("b", "b", "b")
        var iterator = cache.snapshots().makeIterator()
        try cache.remove("b")
        try cache.set("c", "c", "c")
        try cache.set("a", "A", "A")
        let next = iterator.next()
        let first = try #require(next)
        #expect(first.key == "a")
        #expect(try first.data(at: 0) == Data("A"), "updated before it was reached")
        #expect(iterator.next() == nil)
        try cache.close()
    }

    @Test func closedCacheRefusesOperations() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set("a", "a", "a")
        try cache.close()
        try cache.close()  // twice is fine
        #expect(cache.isClosed)
        #expect(throws: DiskLruError.closed) { try cache.edit("a") }
        #expect(throws: DiskLruError.closed) { try cache.snapshot(forKey: "a") }
        #expect(throws: DiskLruError.closed) { try cache.remove("a") }
        #expect(throws: DiskLruError.closed) { try cache.flush() }
        #expect(Array(cache.snapshots()).isEmpty)
    }

    /// Issue 14 C7: only the cache's own files go; the lock file stays for a process that may wait on it.
    @Test func deleteRemovesTheCachesFilesOnly() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set("a", "a", "a")
        dir.write("unrelated", "x")
        try cache.delete()
        #expect(dir.names == ["unrelated"])
        #expect(cache.isClosed)
    }

    @Test func streamingWriterIsClosedByCommit() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        let editor = try #require(try cache.edit("big"))
        let writer = try editor.writer(at: 1)
        let chunk = Data(repeating: 0xAB, count: 100_000)
        for _ in 0..<5 { try writer.write(chunk) }
        try editor.set(Data("meta"), at: 0)
        try editor.commit()  // the writer was left open; commit closes it
        #expect(cache.size == 500_004)
        let snapshot = try #require(try cache.snapshot(forKey: "big"))
        let reader = try snapshot.reader(at: 1)
        var total = 0
        while let piece = try reader.read(upToCount: 65536) {
            #expect(piece.allSatisfy { $0 == 0xAB })
            total += piece.count
        }
        #expect(total == 500_000)
        try cache.close()
    }

    @Test func lengthsMatchFilesAfterUpdates() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set("k", "aaa", "bbbbb")
        try cache.setPartialData([1: Data("cc")], forKey: "k")
        #expect(cache.size == 5)
        try cache.close()
        #expect(dir.journalBody().last == "CLEAN k 3 2")
        let attributes = try FileManager.default.attributesOfItem(atPath: dir.file("k.1"))
        #expect(attributes[.size] as? Int == 2)
    }
}
