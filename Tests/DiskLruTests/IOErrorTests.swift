import Foundation
import Testing
@testable import DiskLru

/// Files and directories disappearing underneath the cache, and a disk that fills up.
@Suite struct IOErrorTests {
    @Test func valueFileDeletedExternallyDropsTheEntry() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set("a", "a", "a")
        try cache.set("b", "b", "b")
        dir.delete("a.1")
        #expect(try cache.snapshot(forKey: "a") == nil)
        #expect(cache.size == 2)
        #expect(!dir.exists("a.0"))
        #expect(try cache.strings("b") == ["b", "b"], "other entries keep working")
        try cache.close()
        #expect(dir.journalBody().contains("REMOVE a"))
    }

    @Test func removeWithMissingFileDoesNotThrow() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set("a", "a", "a")
        dir.delete("a.0")
        #expect(try cache.remove("a"))
        #expect(cache.size == 0)
        try cache.close()
    }

    @Test func directoryDeletedUnderneathStillAcceptsWrites() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        try cache.set("a", "a", "a")
        try FileManager.default.removeItem(at: dir.url)
        #expect(try cache.snapshot(forKey: "a") == nil, "reads return nil, no error")
        try cache.set("b", "b", "b")
        #expect(try cache.strings("b") == ["b", "b"])
        try cache.close()
    }

    @Test func directoryEmptiedDuringFirstCreationStoresNothing() throws {
        let dir = TempDirectory()
        let cache = try dir.open()
        let editor = try #require(try cache.edit("a"))
        try editor.set(Data("a"), at: 0)
        try FileManager.default.removeItem(at: dir.url)
        try editor.set(Data("a"), at: 1)
        try editor.commit()
        #expect(try cache.snapshot(forKey: "a") == nil)
        try cache.close()
    }

    @Test func diskFullSurfacesErrorsAndLeavesAConsistentJournal() throws {
        let dir = TempDirectory()
        let output = try Child.run(["diskfull", dir.path, "65536"])
        // The value over the limit is refused with the system's error, and nothing is published.
        #expect(output.contains("big refused: write"), "\(output)")
        #expect(output.contains("big present: false"))
        // The journal reaches the limit: the failing commit reports it instead of tearing a record.
        #expect(output.contains("journal full after"), "\(output)")
        #expect(output.contains("small readable: true"))
        #expect(output.contains("done"))
        let cache = try DiskLruCache(directory: dir.url, appVersion: 1, valueCount: 2, maxSize: 1 << 40)
        #expect(cache.recoveredCorruption == nil, "journal must still parse")
        #expect(try cache.snapshot(forKey: "small") != nil)
        #expect(try cache.snapshot(forKey: "big") == nil)
        // Every entry the reopened journal lists is whole.
        for key in cache.keys() {
            let snapshot = try #require(try cache.snapshot(forKey: key))
            #expect(try snapshot.data(at: 0).count == Int(snapshot.length(at: 0)))
            snapshot.close()
        }
        try cache.close()
    }
}
