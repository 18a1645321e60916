import Foundation
import SeededRandom

/// Seeded random operations executed alternately by several implementations on ONE directory.
/// At every handover the outgoing side flushes and dumps (keys in LRU order, values, size) and closes;
/// the incoming side opens and must dump exactly the same. Every read is also checked against a model of
/// the values written (eviction may only turn a value into a miss, never into other bytes).
final class CrossRun {
    struct Mismatch: Error, CustomStringConvertible {
        let description: String
    }

    private enum Known { case absent, present([Data]) }

    private let drivers: [Driver]
    private let directory: URL
    private let params = OpenParams(appVersion: 7, valueCount: 2, maxSize: 160)
    private let keys = (0..<16).map { "k\($0)" }
    private var rng: SplitMix64
    private var model: [String: Known] = [:]
    private var active = 0
    private var log: [String] = []
    private(set) var handovers = 0
    private(set) var operations = 0
    /// Evidence that the run exercised compaction and eviction, not just appends.
    private(set) var compactions = 0
    private(set) var evictions = 0
    private var journalLines = 0

    init(drivers: [Driver], seed: UInt64, directory: URL) {
        self.drivers = drivers
        self.directory = directory
        rng = SplitMix64(seed: seed)
    }

    func run(operations count: Int) throws {
        try? FileManager.default.removeItem(at: directory)
        try expectOK(open())
        while operations < count {
            operations += 1
            try randomOperation()
        }
        try handover()  // the final state must also survive a handover
        try expectOK(send("close"))
        for d in drivers { d.reset() }
    }

    private var driver: Driver { drivers[active] }

    private func send(_ command: String) throws -> Reply {
        log.append("[\(driver.name)] \(command)")
        if log.count > 40 { log.removeFirst() }
        let line = try driver.send(command)
        log.append("  -> \(line.prefix(200))")
        guard let reply = Reply(line) else { throw mismatch("malformed reply: \(line)") }
        return reply
    }

    private func expectOK(_ reply: Reply) throws {
        guard case .ok = reply else { throw mismatch("expected ok, got \(reply)") }
    }

    private func mismatch(_ what: String) -> Mismatch {
        Mismatch(description: "after \(operations) operations and \(handovers) handovers: \(what)\nlast commands:\n"
            + log.joined(separator: "\n"))
    }

    private func open() throws -> Reply { try send(params.command(directory: directory.path, options: [:])) }

    private func randomValue() -> Data {
        Data((0..<Int.random(in: 0...24, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
    }

    private func randomOperation() throws {
        let key = keys.randomElement(using: &rng)!
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<30: try set(key, [randomValue(), randomValue()])
        case 30..<55: try get(key)
        case 55..<58: for _ in 0..<120 { try get(key) }  // grows the journal so compaction happens
        case 58..<66:
            guard case .ok(let payload) = try send("remove \(key)") else { throw mismatch("remove failed") }
            if payload == ["true"], case .absent = model[key] ?? .absent { throw mismatch("remove of absent \(key) returned true") }
            model[key] = .absent
        case 66..<72: try updateOneValue(key)
        case 72..<77:
            if try send("edit e \(key)") == .ok([]) {
                try expectOK(send("write e 0 \(Hex.encode(randomValue()))"))
                try expectOK(send("abort e"))
            }
        case 77..<81: try expectOK(send("flush"))
        case 81..<85: try expectOK(send("runCleanup"))
        case 85..<86:
            try expectOK(send("evictAll"))
            model = [:]
        case 86..<88:
            try expectOK(send("close"))
            try expectOK(open())
        case 88..<96: try handover()
        default: _ = try dump()
        }
    }

    private func set(_ key: String, _ values: [Data]) throws {
        guard try send("edit e \(key)") == .ok([]) else { throw mismatch("edit \(key) refused") }
        for (i, v) in values.enumerated() { try expectOK(send("write e \(i) \(Hex.encode(v))")) }
        try expectOK(send("commit e"))
        model[key] = .present(values)
    }

    /// Writes one index: an update keeps the other value; a first creation fails as incomplete.
    private func updateOneValue(_ key: String) throws {
        guard try send("edit e \(key)") == .ok([]) else { throw mismatch("edit \(key) refused") }
        let index = Int.random(in: 0..<params.valueCount, using: &rng), value = randomValue()
        try expectOK(send("write e \(index) \(Hex.encode(value))"))
        switch try send("commit e") {
        case .ok:
            guard case .present(var values) = model[key] ?? .absent else {
                throw mismatch("partial first creation of \(key) committed")
            }
            values[index] = value
            model[key] = .present(values)
        case .error("incompleteEntry", _):
            model[key] = .absent  // the entry had been evicted (or never existed)
        case let other: throw mismatch("commit e: \(other)")
        }
    }

    private func get(_ key: String) throws {
        let reply = try send("get \(key)")
        switch (reply, model[key] ?? .absent) {
        case (.null, let known):
            if case .present = known { evictions += 1 }  // a miss is fine: the entry may have been evicted
            model[key] = .absent
        case (.ok(let tokens), .present(let values)):
            guard Reply.values(tokens) == CrossRun.json(values) else { throw mismatch("get \(key) returned wrong values") }
        case (.ok, .absent): throw mismatch("get \(key) returned a value that was removed or never written")
        default: throw mismatch("get \(key): \(reply)")
        }
    }

    private static func json(_ values: [Data]) -> JSONValue { .array(values.map { .string(ValueText.encode($0)) }) }

    /// The implementation's view: entries in LRU order with values, and size; checked against the model.
    private func dump() throws -> (entries: [String], size: String) {
        guard case .ok(let tokens) = try send("snapshots"), let entries = Reply.entries(tokens) else {
            throw mismatch("snapshots failed")
        }
        guard case .ok(let size) = try send("size") else { throw mismatch("size failed") }
        var seen: Set<String> = []
        for (key, values) in entries {
            seen.insert(key)
            guard case .present(let expected) = model[key] ?? .absent, CrossRun.json(expected) == values else {
                throw mismatch("\(key) listed with \(values) but the model says \(String(describing: model[key]))")
            }
        }
        for (key, known) in model where !seen.contains(key) {
            if case .present = known { evictions += 1 }
            model[key] = .absent
        }
        return (entries.map { "\($0.key)=\($0.values)" }, size.joined())
    }

    /// A journal that got shorter since the last handover was compacted in between.
    private func countCompaction() {
        guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent("journal").path) else { return }
        let lines = data.count { $0 == UInt8(ascii: "\n") }
        if lines < journalLines { compactions += 1 }
        journalLines = lines
    }

    private func handover() throws {
        try expectOK(send("flush"))
        let before = try dump()
        try expectOK(send("close"))
        countCompaction()
        let from = driver.name
        active = (active + 1) % drivers.count
        handovers += 1
        try expectOK(open())
        let after = try dump()
        guard before.entries == after.entries, before.size == after.size else {
            throw mismatch("handover \(from) -> \(driver.name) changed the cache:\n  before: size \(before.size) "
                + "\(before.entries)\n  after:  size \(after.size) \(after.entries)")
        }
    }
}
