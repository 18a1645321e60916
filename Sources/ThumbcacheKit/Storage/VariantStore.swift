import DiskLru
import Foundation
import ImageDecode

/// Processed images (imgproxy's options) on disk: a DiskLru of their own in `variants/`, one entry per source and
/// meaning, values [record JSON, image bytes]. The key is the source's key, a dash and 40 hex digits of SHA-256
/// over the variant's name (canonical options, format asked for, default quality), so a source's variants are
/// found by its key's prefix: a purge, `thumbcache rm` and a changed original remove them with it. Evicted LRU
/// within their own budget (a part of `--max-disk-size`), and kept across restarts like the entries.
final class VariantStore: Sendable {
    static let appVersion = 1
    static let recordIndex = 0
    static let imageIndex = 1

    let cache: DiskLruCache
    /// Told of each change, so the variants keep to their share and the entries use what they leave.
    private let budget: SharedDiskBudget?
    /// Records read recently, for the entry state they were read from: a hit of a known variant opens and reads
    /// only its image, with no JSON to parse.
    let known = SnapshotMemo<Record>(count: 8192, totalCost: 4 << 20)

    /// What is known of a stored variant without decoding it.
    struct Record: Codable, Sendable, Equatable {
        /// The source entry's key.
        var source: String
        /// The variant's name, as hashed into its key (a check against a hash collision).
        var variant: String
        var format: String
        var width: Int
        var height: Int
        /// Lowercase hex SHA-256 of the bytes (the ETag).
        var digest: String
        /// SHA-256 of the original it was rendered from (`CacheMetadata.Original.digest`): served only for that
        /// original. A record without it (written before it was kept) does not decode, and is rendered again.
        var originalDigest: String

        /// nil for bytes that are not a record (another version's, or damaged): the variant is rendered again.
        static func decoded(_ bytes: Data) -> Record? {
            try? JSONDecoder().decode(Self.self, from: bytes)
        }
    }

    init(directory: URL, maxSize: Int64, access: StoreAccess, sharing budget: SharedDiskBudget? = nil) throws(PipelineError) {
        self.budget = budget
        do {
            // The entries' lock is already held by this process (`EntryStore`), so this one is free or about to be.
            cache = try access.open(directory, appVersion: Self.appVersion, valueCount: 2, maxSize: maxSize)
        } catch {
            throw .cache(error)
        }
        budget?.variantsChanged(cache)
    }

    /// A variant's name: its meaning (canonical options, the format it is written in) and the quality it is
    /// encoded at (and, when the format was preferred from `Accept`, its fallback's format and quality:
    /// `FormatFallback`). `list` reads it back.
    static func name(canonical: String, format: ImageFormat, quality: Int, fallback: (format: ImageFormat, quality: Int)?) -> String {
        "\(canonical)|\(format.rawValue)|q\(quality)" + (fallback.map { " negotiated, else \($0.format.rawValue) q\($0.quality)" } ?? "")
    }

    static func key(source: String, variant: String) -> String {
        source + "-" + SHA256Digest.hex(variant).prefix(40)
    }

    /// The stored variant, if it was rendered from the original of `originalDigest`. With `.residentOnly`,
    /// nil rather than wait for bytes not in the page cache (an event loop's read).
    func stored(source: String, variant: String, originalDigest: String,
                read: DiskRead = .waiting) throws(PipelineError) -> (data: Data, record: Record)? {
        let key = Self.key(source: source, variant: variant)
        let remembered = known.remembered(key)
        do {
            guard let snapshot = try cache.snapshot(forKey: key, opening: { sequenceNumber in
                sequenceNumber == remembered?.sequenceNumber ? [Self.imageIndex] : [Self.recordIndex, Self.imageIndex]
            }) else { return nil }
            defer { snapshot.close() }
            let record: Record
            if let remembered = known.record(key, at: snapshot.sequenceNumber) {
                record = remembered
            } else {
                guard let bytes = try value(snapshot, Self.recordIndex, read: read),
                      let decoded = Record.decoded(bytes) else { return nil }
                record = decoded
                known.remember(record, key: key, sequenceNumber: snapshot.sequenceNumber, cost: 512)
            }
            guard record.variant == variant, record.source == source, record.originalDigest == originalDigest,
                  let data = try value(snapshot, Self.imageIndex, read: read), !data.isEmpty
            else { return nil }
            return (data, record)
        } catch {
            throw .cache(error)
        }
    }

    private func value(_ snapshot: DiskLruSnapshot, _ index: Int, read: DiskRead) throws(DiskLruError) -> Data? {
        guard read == .residentOnly else { return try snapshot.data(at: index) }
        let length = Int(snapshot.length(at: index))
        guard let data = try snapshot.dataIfResident(at: index, offset: 0, count: length), data.count == length else { return nil }
        return data
    }

    /// Stores a rendered variant; returns the bytes written.
    @discardableResult
    func save(_ data: Data, record: Record) throws(PipelineError) -> Int {
        let encoded = (try? JSONEncoder().encode(record)) ?? Data()
        do {
            try cache.setData([encoded, data], forKey: Self.key(source: record.source, variant: record.variant))
        } catch {
            throw .cache(error)
        }
        budget?.variantsChanged(cache)
        return encoded.count + data.count
    }

    /// The source's stored variants, as `info` shows them (records read, images not).
    func list(ofSource source: String) -> [EntryInfo.Processed] {
        let prefix = source + "-"
        return cache.keys().filter { $0.hasPrefix(prefix) }.sorted().compactMap { key in
            guard let snapshot = try? cache.snapshot(forKey: key) else { return nil }
            defer { snapshot.close() }
            guard let bytes = try? snapshot.data(at: Self.recordIndex), let record = Record.decoded(bytes) else { return nil }
            // The name is "<canonical>|<format>|q<quality>[ negotiated, else <format> q<quality>]" (`name`).
            let parts = record.variant.split(separator: "|", omittingEmptySubsequences: false)
            return EntryInfo.Processed(options: parts.dropLast(2).joined(separator: "|"),
                                       asked: parts.count >= 2 ? String(parts[parts.count - 2]) : "auto",
                                       format: record.format, width: record.width, height: record.height,
                                       bytes: snapshot.length(at: Self.imageIndex))
        }
    }

    /// Removes every variant of a source; returns how many there were.
    @discardableResult
    func removeAll(ofSource source: String) -> Int {
        let prefix = source + "-"
        var removed = 0
        for key in cache.keys() where key.hasPrefix(prefix) {
            if (try? cache.remove(key)) == true { removed += 1 }
        }
        if removed > 0 { budget?.variantsChanged(cache) }
        return removed
    }

    /// Removes every variant (`ThumbnailPipeline.removeAll`).
    func evictAll() throws(DiskLruError) {
        try cache.evictAll()
        budget?.variantsChanged(cache)
    }
}
