// A child process for DiskLru's crash and I/O-error tests (Tests/DiskLruTests/CrashTests.swift).
//   disklru-torture churn DIR SEED       write, update and remove self-verifying entries until killed
//   disklru-torture diskfull DIR LIMIT   run with RLIMIT_FSIZE=LIMIT and report each failure as a line
import DiskLru
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Value 0 names the key and generation; value 1's bytes and length are derived from them.
/// A reader can therefore tell whether both values came from the same commit.
enum EntryContent {
    static func values(key: String, generation: Int) -> [Data] {
        let header = Data("\(key):\(generation):".utf8) + Data(repeating: UInt8(generation % 251), count: 64)
        return [header, body(key: key, generation: generation)]
    }

    static func body(key: String, generation: Int) -> Data {
        var state = UInt64(truncatingIfNeeded: generation &* 2_654_435_761) ^ UInt64(truncatingIfNeeded: key.hashValueStable)
        let count = 1 + (generation &* 97 + key.utf8.count) % 30_000
        var bytes = [UInt8](repeating: 0, count: count)
        for i in 0..<count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            bytes[i] = UInt8(truncatingIfNeeded: state >> 33)
        }
        return Data(bytes)
    }
}

extension String {
    /// FNV-1a, because `hashValue` is seeded per process and the parent must recompute the same bytes.
    var hashValueStable: UInt64 {
        utf8.reduce(14_695_981_039_346_656_037) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
    }
}

func churn(directory: URL, seed: UInt64) throws {
    var random = SystemRandomNumberGenerator()
    _ = seed
    let cache = try DiskLruCache(
        directory: directory, appVersion: 1, valueCount: 2, maxSize: 600_000,
        options: DiskLruOptions(locking: .wait(timeout: .seconds(10))))
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    var generation = Int(Date().timeIntervalSince1970 * 1000) % 1_000_000
    while true {
        generation += 1
        let key = "key-\(Int.random(in: 0..<40, using: &random))"
        switch Int.random(in: 0..<10, using: &random) {
        case 0:
            try cache.remove(key)
        case 1:
            _ = try cache.snapshot(forKey: key).map { try $0.data(at: 1) }
        case 2 where cache.contains(key):
            let values = EntryContent.values(key: key, generation: generation)
            try? cache.setPartialData([0: values[0], 1: values[1]], forKey: key)
        default:
            guard let editor = try cache.edit(key) else { continue }
            let values = EntryContent.values(key: key, generation: generation)
            // Stream value 1 in pieces so a kill can land in the middle of a value.
            try editor.set(values[0], at: 0)
            let writer = try editor.writer(at: 1)
            var offset = 0
            while offset < values[1].count {
                let end = min(offset + 4096, values[1].count)
                try writer.write(values[1][offset..<end])
                offset = end
            }
            try writer.close()
            try editor.commit()
        }
    }
}

func diskFull(directory: URL, limit: Int) throws {
    signal(SIGXFSZ, SIG_IGN)  // get EFBIG from write() instead of being killed
    var rl = rlimit(rlim_cur: rlim_t(limit), rlim_max: rlim_t(limit))
    setrlimit(Int32(RLIMIT_FSIZE.rawValue), &rl)
    let cache = try DiskLruCache(directory: directory, appVersion: 1, valueCount: 2, maxSize: 1 << 40)
    try cache.setData(EntryContent.values(key: "small", generation: 1), forKey: "small")
    print("small ok")
    do {
        try cache.setData([Data("big".utf8), Data(repeating: 7, count: limit + 1)], forKey: "big")
        print("big stored")
    } catch {
        print("big refused: \(error)")
    }
    print("big present: \(cache.contains("big"))")
    // Grow the journal until a record no longer fits.
    var i = 0
    while i < 100_000 {
        do {
            try cache.setData([Data("a".utf8), Data("b".utf8)], forKey: "k\(i)")
        } catch {
            print("journal full after \(i) entries: \(error)")
            break
        }
        i += 1
    }
    let small = try cache.snapshot(forKey: "small").map { try $0.data(at: 1) }
    print("small readable: \(small == EntryContent.values(key: "small", generation: 1)[1])")
    try? cache.close()
    print("done")
}

let arguments = CommandLine.arguments
do {
    switch (arguments.count, arguments.dropFirst().first) {
    case (4, "churn"):
        try churn(directory: URL(fileURLWithPath: arguments[2]), seed: UInt64(arguments[3]) ?? 0)
    case (4, "diskfull"):
        try diskFull(directory: URL(fileURLWithPath: arguments[2]), limit: Int(arguments[3]) ?? 65536)
    default:
        FileHandle.standardError.write(Data("usage: disklru-torture churn DIR SEED | diskfull DIR LIMIT\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("disklru-torture: \(error)\n".utf8))
    exit(1)
}
