import Foundation
import ImageDecode

/// What was learnt from recently read disk entries, by cache key (a `SnapshotMemo`, so for one state of each entry),
/// so that a disk hit of a known entry opens and reads only its thumbnail's bytes: the parsed metadata (value 0,
/// JSON), until when the source stays fresh, and per stored thumbnail its dimensions and SHA-256 (the ETag), which
/// would otherwise take a probe and a hash per hit.
final class KnownEntries: Sendable {
    struct Known: Sendable {
        let sequenceNumber: Int64
        let metadata: CacheMetadata
        /// Until when the stored response may be served without asking the origin (`Freshness.freshUntil`, the one
        /// rule): the remaining lifetime shrinks as the age grows with the clock, so this instant holds whenever it
        /// is read; `no-cache` gives the moment it was read, so it is never fresh.
        let freshUntil: Date
        /// The origin's Last-Modified, parsed.
        let lastModified: Date?
        var thumbnails: [ThumbnailFacts] = []

        func isFresh(at now: Date) -> Bool { freshUntil > now }

        func facts(size: Int, format: ImageFormat) -> ThumbnailFacts? {
            thumbnails.first { $0.size == size && $0.format == format }
        }
    }

    /// One stored thumbnail's header facts and digest.
    struct ThumbnailFacts: Sendable, Equatable {
        let size: Int
        let format: ImageFormat
        let width: Int
        let height: Int
        /// Lowercase hex SHA-256 of the thumbnail's bytes.
        let digest: String
    }

    private let records: SnapshotMemo<Known>
    /// A shared cache's freshness reads `s-maxage` (`CacheRole`).
    private let shared: Bool

    /// `count` records at most (one per source: metadata of about a kilobyte each).
    init(shared: Bool, count: Int = 4096) {
        self.shared = shared
        records = SnapshotMemo(count: count, totalCost: count << 10, entryCost: 64 << 10)
    }

    /// The record of `key`, of whatever state of the entry it was made from (compare its sequence number).
    func known(_ key: String) -> Known? {
        records.remembered(key)?.record
    }

    /// Records `metadata` as what the entry's state `sequenceNumber` holds, judging its freshness at `now`.
    @discardableResult
    func remember(_ metadata: CacheMetadata, key: String, sequenceNumber: Int64, now: Date = Date()) -> Known {
        let freshness = Freshness(metadata: metadata, now: now, shared: shared)
        let known = Known(sequenceNumber: sequenceNumber, metadata: metadata,
                          freshUntil: freshness.freshUntil(now: now),
                          lastModified: metadata.headers["last-modified"].flatMap(HTTPDate.parse))
        records.remember(known, key: key, sequenceNumber: sequenceNumber, cost: Self.cost(of: metadata))
        return known
    }

    /// Adds a thumbnail's facts to the record of `key`, if that record is still of the state `sequenceNumber`
    /// (`SnapshotMemo.update`: a lost update costs a later hit a probe again, never a wrong answer).
    func add(_ facts: ThumbnailFacts, key: String, sequenceNumber: Int64) {
        records.update(key, at: sequenceNumber, cost: { Self.cost(of: $0.metadata) }) { known in
            guard known.facts(size: facts.size, format: facts.format) == nil else { return false }
            known.thumbnails.append(facts)
            return true
        }
    }

    /// How many records are kept (for tests).
    var count: Int { records.count }

    /// Roughly the bytes a record keeps: its strings, and the fixed part.
    private static func cost(of metadata: CacheMetadata) -> Int {
        metadata.headers.reduce(256 + metadata.url.utf8.count + 64 * metadata.thumbnails.count) {
            $0 + $1.key.utf8.count + $1.value.utf8.count + 32
        }
    }
}
