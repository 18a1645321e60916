import Foundation
import Testing
@testable import DiskLru
import SeededRandom

/// Hundreds of random, mutated and truncated journals: opening never crashes, and whatever the cache
/// decides, the directory it leaves behind reopens to the same state.
@Suite struct JournalFuzzTests {
    static let keys = ["a", "b", "c", "k1", "K1", "", "zz"]
    static let shapeCount = 10

    static func line(shape: Int, _ random: inout SplitMix64) -> String {
        switch shape {
        case 0: "CLEAN \(keys.randomElement(using: &random)!) \(Int.random(in: -2...9, using: &random)) \(Int.random(in: 0...9, using: &random))"
        case 1: "DIRTY \(keys.randomElement(using: &random)!)"
        case 2: "REMOVE \(keys.randomElement(using: &random)!)"
        case 3: "READ \(keys.randomElement(using: &random)!)"
        case 4: "CLEAN a 1"
        case 5: "BOGUS a"
        case 6: ""
        case 7: "CLEAN a \(UInt64.random(in: 0...UInt64.max, using: &random)) 99999999999999999999"
        case 8: "READ a\r"
        default: String(decoding: (0..<Int.random(in: 1...12, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }, as: UTF8.self)
        }
    }

    static func journal(_ random: inout SplitMix64) -> [UInt8] {
        var text = Int.random(in: 0..<10, using: &random) == 0 ? "libcore.io.DiskLruCache\n1\n100\n3\n\n" : header
        for _ in 0..<Int.random(in: 0...30, using: &random) {
            // Mostly well-formed lines, so the interesting states (dirty, removed, re-read) are reached.
            let shape = Int.random(in: 0..<100, using: &random) < 85
                ? Int.random(in: 0...3, using: &random) : Int.random(in: 4..<shapeCount, using: &random)
            text += line(shape: shape, &random) + (Int.random(in: 0..<20, using: &random) == 0 ? "\r\n" : "\n")
        }
        var bytes = Array(text.utf8)
        switch Int.random(in: 0..<4, using: &random) {
        case 0 where !bytes.isEmpty: bytes.removeLast(Int.random(in: 1...min(bytes.count, 15), using: &random))
        case 1 where !bytes.isEmpty: bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
        default: break
        }
        return bytes
    }

    @Test(arguments: 0..<400)
    func randomJournalOpensAndReopensConsistently(seed: Int) throws {
        var random = SplitMix64(seed: UInt64(seed) &* 7919)
        let dir = TempDirectory()
        dir.write("journal", Data(Self.journal(&random)))
        for key in ["a", "b", "c", "k1", "zz"] {
            for index in 0..<2 where Bool.random(using: &random) {
                dir.write("\(key).\(index)", String(repeating: "x", count: Int.random(in: 0...9, using: &random)))
            }
            if Bool.random(using: &random) { dir.write("\(key).0.tmp", "t") }
        }
        if Int.random(in: 0..<8, using: &random) == 0 { dir.write("journal.bkp", header + "CLEAN a 1 1\n") }

        let cache = try dir.open(maxSize: 20)
        var expected: [String: [Data]] = [:]
        for snapshot in cache.snapshots() {
            expected[snapshot.key] = try [snapshot.data(at: 0), snapshot.data(at: 1)]
            snapshot.close()
        }
        let order = cache.keys()
        // The cache stays usable whatever it was handed.
        try cache.set("fresh", "f", "g")
        try cache.remove("fresh")
        try cache.flush()
        try cache.close()

        let reopened = try dir.open(maxSize: 20)
        #expect(reopened.recoveredCorruption == nil, "a journal we wrote must never look corrupt")
        var actual: [String: [Data]] = [:]
        for snapshot in reopened.snapshots() {
            actual[snapshot.key] = try [snapshot.data(at: 0), snapshot.data(at: 1)]
            snapshot.close()
        }
        // Entries may only disappear through the bound (flush trims to 20 bytes), never change.
        for (key, values) in actual { #expect(expected[key] == values, "\(key) changed across reopen") }
        #expect(reopened.keys() == order.filter { actual[$0] != nil })
        try reopened.close()
    }
}
