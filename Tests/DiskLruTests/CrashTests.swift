import Foundation
import Testing
@testable import DiskLru
@testable import disklru_torture

/// A writer killed with SIGKILL at random moments must lose at most its in-flight edit: every entry
/// that survives reopens whole, with both values from the same commit.
@Suite struct CrashTests {
    @Test func killedWriterLeavesOnlyWholeEntries() throws {
        let dir = TempDirectory()
        var entriesSeen = 0
        var generations = Set<String>()
        for round in 0..<30 {
            let (child, _) = try Child.start(["churn", dir.path, String(round)])
            usleep(UInt32.random(in: 5_000...120_000))
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            #expect(child.terminationReason == .uncaughtSignal, "round \(round): the child must still be running when killed")

            let cache = try DiskLruCache(directory: dir.url, appVersion: 1, valueCount: 2, maxSize: 600_000,
                                         options: DiskLruOptions(cleanup: .manual))
            #expect(cache.recoveredCorruption == nil, "round \(round): \(cache.recoveredCorruption ?? "")")
            var size: Int64 = 0
            for snapshot in cache.snapshots() {
                let header = String(decoding: try snapshot.data(at: 0).prefix(40), as: UTF8.self).split(separator: ":")
                #expect(header.count >= 2 && header[0] == snapshot.key, "round \(round): value 0 of \(snapshot.key)")
                let generation = Int(header[1]) ?? -1
                let body = try snapshot.data(at: 1)
                #expect(body == EntryContent.body(key: snapshot.key, generation: generation),
                        "round \(round): value 1 of \(snapshot.key) is not from the same commit as value 0")
                #expect(Int64(body.count) == snapshot.length(at: 1))
                size += snapshot.length(at: 0) + snapshot.length(at: 1)
                generations.insert("\(snapshot.key):\(generation)")
                entriesSeen += 1
                snapshot.close()
            }
            #expect(size == cache.size, "round \(round): recorded size matches the entries")
            // No edit files survive a reopen, and no value file is left without an entry.
            let keys = Set(cache.keys())
            for name in dir.names where name != "journal" {
                let key = String(name.split(separator: ".")[0])
                #expect(keys.contains(key) && !name.hasSuffix(".tmp"), "round \(round): stray \(name)")
            }
            try cache.close()
        }
        #expect(entriesSeen > 30, "the churn must have published entries")
        #expect(generations.count > 10, "entries must have changed between rounds")
    }
}
