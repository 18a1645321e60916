// The workload of shared/bench/OkBench.java, run against DiskLru, printing the same lines
// (`phase ops seconds ops_per_s`) so the two can be compared side by side.
// Usage: disklru-bench DIR N G
import DiskLru
import Foundation

/// java.util.Random's LCG, so key choice matches OkBench's `new Random(42).nextInt(n)` exactly.
struct JavaRandom {
    private var seed: Int64
    init(_ seed: Int64) { self.seed = (seed ^ 0x5DEECE66D) & ((1 << 48) - 1) }

    private mutating func next(_ bits: Int) -> Int32 {
        seed = (seed &* 0x5DEECE66D &+ 0xB) & ((1 << 48) - 1)
        return Int32(truncatingIfNeeded: seed >> (48 - Int64(bits)))
    }

    mutating func nextInt(_ bound: Int32) -> Int32 {
        if bound & -bound == bound { return Int32((Int64(bound) &* Int64(next(31))) >> 31) }
        var bits: Int32, value: Int32
        repeat {
            bits = next(31)
            value = bits % bound
        } while bits &- value &+ (bound &- 1) < 0
        return value
    }

    mutating func nextBytes(_ count: Int) -> Data {
        var bytes = [UInt8]()
        bytes.reserveCapacity(count)
        while bytes.count < count {
            var word = next(32)
            for _ in 0..<min(4, count - bytes.count) {
                bytes.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return Data(bytes)
    }
}

func key(_ i: Int) -> String {
    let digits = String(i)
    return "k" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
}

func report(_ phase: String, _ ops: Int, _ start: ContinuousClock.Instant) {
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print("\(phase) \(ops) \(String(format: "%.3f", seconds)) \(String(format: "%.0f", Double(ops) / seconds))")
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let n = Int(arguments[2]), let g = Int(arguments[3]), n > 0 else {
    FileHandle.standardError.write(Data("usage: disklru-bench DIR N G\n".utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: arguments[1])
var randomA = JavaRandom(7), randomB = JavaRandom(8)
let a = randomA.nextBytes(1024), b = randomB.nextBytes(16384)

do {
    let cache = try DiskLruCache(directory: directory, appVersion: 1, valueCount: 2, maxSize: Int64.max / 4)
    let writeStart = ContinuousClock.now
    for i in 0..<n {
        guard let editor = try cache.edit(key(i)) else { fatalError("edit refused") }
        try editor.set(a, at: 0)
        try editor.set(b, at: 1)
        try editor.commit()
    }
    report("write", n, writeStart)

    var random = JavaRandom(42)
    var bytes = 0
    let readStart = ContinuousClock.now
    for _ in 0..<g {
        guard let snapshot = try cache.snapshot(forKey: key(Int(random.nextInt(Int32(n))))) else { fatalError("miss") }
        bytes += try snapshot.data(at: 1).count
        snapshot.close()
    }
    report("read", g, readStart)
    try cache.close()

    let reopenStart = ContinuousClock.now
    let reopened = try DiskLruCache(directory: directory, appVersion: 1, valueCount: 2, maxSize: Int64.max / 4)
    guard let snapshot = try reopened.snapshot(forKey: "k00000000") else { fatalError("entry lost on reopen") }
    snapshot.close()
    report("reopen", 1, reopenStart)
    print("size \(reopened.size) readbytes \(bytes)")
    try reopened.close()
} catch {
    FileHandle.standardError.write(Data("disklru-bench: \(error)\n".utf8))
    exit(1)
}
