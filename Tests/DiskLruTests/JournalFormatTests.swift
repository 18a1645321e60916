import Foundation
import Testing
@testable import DiskLru

/// The journal bytes we write, record by record, as both references write them (spec §1, §4 [J] tests).
@Suite struct JournalFormatTests {
    @Test func emptyCacheJournalIsExactlyTheHeader() throws {
        let dir = TempDirectory()
        try dir.open().close()
        #expect(dir.read("journal") == header)
    }

    @Test func dirtyIsOnDiskBeforeCommitAndCleanAfter() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        let editor = try #require(try cache.edit("k1"))
        #expect(dir.journalBody() == ["DIRTY k1"])
        try editor.set(Data("AB"), at: 0)
        try editor.set(Data("C"), at: 1)
        try editor.commit()
        try cache.close()
        #expect(dir.journalBody() == ["DIRTY k1", "CLEAN k1 2 1"])
        #expect(dir.read("journal")?.contains("\r") == false)
    }

    @Test func abortedNewEntryIsRemoved() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        let editor = try #require(try cache.edit("k1"))
        try editor.set(Data("AB"), at: 0)
        try editor.abort()
        try cache.close()
        #expect(dir.journalBody() == ["DIRTY k1", "REMOVE k1"])
        #expect(dir.names == ["journal"])
    }

    @Test func unterminatedEditIsRevertedOnClose() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        let editor = try #require(try cache.edit("k1"))
        try editor.set(Data("AB"), at: 0)
        try cache.close()
        #expect(dir.journalBody() == ["DIRTY k1", "REMOVE k1"])
        #expect(throws: DiskLruError.editorFinished) { try editor.commit() }
    }

    @Test func readOfUnpublishedValueWritesNoRead() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        let editor = try #require(try cache.edit("k1"))
        try editor.set(Data("A"), at: 0)
        #expect(try cache.snapshot(forKey: "k1") == nil)
        try editor.set(Data("BC"), at: 1)
        try editor.commit()
        try cache.close()
        #expect(dir.journalBody() == ["DIRTY k1", "CLEAN k1 1 2"])
    }

    @Test func editPublishAndRead() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set("k1", "AB", "C")
        try cache.set("k2", "DEF", "G")
        #expect(try cache.strings("k1") == ["AB", "C"])
        try cache.close()
        #expect(dir.journalBody() == ["DIRTY k1", "CLEAN k1 2 1", "DIRTY k2", "CLEAN k2 3 1", "READ k1"])
    }

    @Test func explicitRemoveIsRecordedAndDeletesFiles() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set("k1", "A", "B")
        #expect(try cache.remove("k1"))
        #expect(!dir.exists("k1.0") && !dir.exists("k1.1"))
        #expect(try cache.remove("k1") == false)
        try cache.close()
        #expect(dir.journalBody() == ["DIRTY k1", "CLEAN k1 1 1", "REMOVE k1"])
    }

    @Test func committedEntrySurvivesWithoutProperClose() throws {
        let dir = TempDirectory()
        let cache = try dir.open(options: DiskLruOptions(locking: .none, cleanup: .manual))
        try cache.set("k1", "A", "B")
        // A second instance, as if the first process had died: DIRTY and CLEAN were flushed at commit.
        let second = try dir.open(options: DiskLruOptions(locking: .none, cleanup: .manual))
        #expect(try second.strings("k1") == ["A", "B"])
        try second.close()
        try cache.close()
    }

    @Test func updateThatWritesOneValueKeepsTheOther() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set("k1", "A", "B")
        let editor = try #require(try cache.edit("k1"))
        #expect(try editor.publishedData(at: 1) == Data("B"))
        try editor.set(Data("CC"), at: 0)
        try editor.commit()
        #expect(try cache.strings("k1") == ["CC", "B"])
        #expect(cache.size == 3)
        try cache.close()
        #expect(dir.journalBody() == ["DIRTY k1", "CLEAN k1 1 1", "DIRTY k1", "CLEAN k1 2 1", "READ k1"])
    }

    @Test func abortedUpdateRepublishesOldLengths() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set("k1", "A", "BB")
        let editor = try #require(try cache.edit("k1"))
        try editor.set(Data("XXXX"), at: 0)
        try editor.abort()
        #expect(try cache.strings("k1") == ["A", "BB"])
        try cache.close()
        #expect(dir.journalBody() == ["DIRTY k1", "CLEAN k1 1 2", "DIRTY k1", "CLEAN k1 1 2", "READ k1"])
        #expect(dir.names == ["journal", "k1.0", "k1.1"])
    }

    @Test func compactionAfterRepeatedReadsKeepsLruOrder() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set("a", "a", "a")
        try cache.set("b", "b", "b")
        // 2 completed edits + 1997 reads = 1999 redundant records: not yet.
        for _ in 0..<1997 { _ = try cache.strings("a") }
        #expect(!cache.isCleanupPending)
        _ = try cache.strings("a")
        #expect(cache.isCleanupPending)
        try cache.performCleanup()
        #expect(dir.journalBody() == ["CLEAN b 1 1", "CLEAN a 1 1"])
        #expect(!dir.exists("journal.bkp") && !dir.exists("journal.tmp"))
        try cache.close()
        let reopened = try dir.open()
        #expect(try reopened.strings("a") == ["a", "a"])
        #expect(reopened.keys() == ["b", "a"])
    }

    @Test func compactionThresholdCountsAcrossReopen() throws {
        let dir = TempDirectory()
        let first = try dir.open()
        try first.set("a", "a", "a")
        try first.close()
        var compactedInRound: Int?
        for round in 0..<25 where compactedInRound == nil {
            let cache = try dir.open()
            for _ in 0..<100 { _ = try cache.strings("a") }
            if cache.isCleanupPending {
                try cache.performCleanup()
                compactedInRound = round
            }
            try cache.close()
        }
        // The redundant count is rebuilt from the journal's line count at open (JakeWharton issue #28).
        #expect(compactedInRound == 19)
        #expect(dir.journalBody() == ["CLEAN a 1 1"])
    }

    @Test func rebuildWritesEntryUnderEditAsDirty() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set("a", "a", "a")
        try cache.set("b", "b", "b")
        let editor = try #require(try cache.edit("c"))
        for _ in 0..<2000 { _ = try cache.strings("a") }
        try cache.performCleanup()
        #expect(dir.journalBody() == ["CLEAN b 1 1", "DIRTY c", "CLEAN a 1 1"])
        try editor.set(Data("c"), at: 0)
        try editor.set(Data("c"), at: 1)
        try editor.commit()
        try cache.close()
        #expect(dir.journalBody() == ["CLEAN b 1 1", "DIRTY c", "CLEAN a 1 1", "CLEAN c 1 1"])
    }
}
