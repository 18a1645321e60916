import Foundation

/// What was parsed from a DiskLru entry's record value, remembered for one published state of the entry, named by
/// its DiskLru sequence number: a commit, a removal or eviction and another process's change all give the entry a
/// new number or none, so a memo of an older state is never used, and the next read replaces it. A hit of a known
/// entry then opens and reads only the bytes it answers with, with no JSON to parse. The one memo both stores use
/// (`EntryStore`'s metadata, `VariantStore`'s records); bounded, least recently used first.
final class SnapshotMemo<Record: Sendable>: Sendable {
    struct Remembered: Sendable {
        let sequenceNumber: Int64
        var record: Record
    }

    private let records: MemoryCache<String, Remembered>

    /// `count` records at most, about `totalCost` bytes in all.
    init(count: Int, totalCost: Int, entryCost: Int? = nil) {
        records = MemoryCache(limits: .init(totalCost: totalCost, count: count, entryCost: entryCost))
    }

    /// The memo of `key`, of whatever state it was made from: a snapshot's `opening:` closure compares its
    /// sequence number to skip the record value.
    func remembered(_ key: String) -> Remembered? {
        records.value(forKey: key)
    }

    /// The record of `key` when it was made from the entry's state `sequenceNumber`.
    func record(_ key: String, at sequenceNumber: Int64) -> Record? {
        guard let remembered = records.value(forKey: key), remembered.sequenceNumber == sequenceNumber else { return nil }
        return remembered.record
    }

    func remember(_ record: Record, key: String, sequenceNumber: Int64, cost: Int) {
        records.set(Remembered(sequenceNumber: sequenceNumber, record: record), forKey: key, cost: cost)
    }

    /// Changes the record of `key` if it is still of the state `sequenceNumber` (`change` returns false to leave it).
    /// Not atomic with a concurrent `remember` or `update` of the key: one of them may be lost, which costs a later
    /// hit a read again, never a wrong answer (every use checks the sequence number).
    func update(_ key: String, at sequenceNumber: Int64, cost: (Record) -> Int, _ change: (inout Record) -> Bool) {
        guard var record = record(key, at: sequenceNumber), change(&record) else { return }
        remember(record, key: key, sequenceNumber: sequenceNumber, cost: cost(record))
    }

    /// How many records are kept (for tests).
    var count: Int { records.count }
}
