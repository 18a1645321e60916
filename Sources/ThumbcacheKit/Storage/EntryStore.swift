import DiskLru
import Foundation
import ImageDecode
import Processing

/// The disk layout: one DiskLru entry per source, values [metadata JSON, original bytes, one value per ladder
/// size]. A ladder size's value holds that size's thumbnails in every stored format, back to back, in the order
/// the metadata lists them with their lengths (`CacheMetadata.thumbnails`); a size with none is an empty value.
/// A new thumbnail rewrites only its size's value and the metadata (`setPartialData`): never the original.
final class EntryStore: Sendable {
    // 2: thumbnails of ICC-tagged sources are converted to sRGB.
    // 3: several formats per ladder size in one value. DiskLru wipes its own files of an older appVersion at open,
    //    so entries of 2 and earlier are dropped, never misread.
    static let appVersion = 3
    static let metadataIndex = 0
    static let originalIndex = 1

    let cache: DiskLruCache
    let ladder: SizeLadder
    /// Read-modify-write of an entry's metadata (adding a thumbnail) must not interleave within the process;
    /// across processes each one runs inside one DiskLru access (the directory lock).
    private let writeLock = NSLock()
    /// Metadata parsed per entry state: the same state again (the next size of one source, as warm asks for
    /// them; every disk hit) skips reading value 0 and JSONDecoder, a sixth of a fresh warm run's time.
    let known: KnownEntries

    /// `shared`: freshness as a shared cache judges it (`CacheRole`), for the disk hits' records.
    init(directory: URL, maxSize: Int64, ladder: SizeLadder, access: StoreAccess, shared: Bool = false,
         onLockWait: @Sendable (String) -> Void = { _ in }) throws(PipelineError) {
        self.ladder = ladder
        known = KnownEntries(shared: shared)
        do {
            cache = try access.open(directory, appVersion: Self.appVersion, valueCount: ladder.valueCount, maxSize: maxSize,
                                    onLockWait: onLockWait)
        } catch {
            throw .cache(error)
        }
    }

    /// A consistent view of one entry: metadata plus lazily read values from the same snapshot.
    struct Entry: Sendable {
        let metadata: CacheMetadata
        let snapshot: DiskLruSnapshot

        func original() throws(PipelineError) -> Data {
            do { return try snapshot.data(at: EntryStore.originalIndex) } catch { throw .cache(error) }
        }

        /// Whether the stored original is a regular file of the length recorded for it (in the journal and in
        /// the metadata). A truncated, replaced or unreadable original fails this, and is fetched again.
        var originalIsIntact: Bool {
            let recorded = snapshot.length(at: EntryStore.originalIndex)
            guard recorded == Int64(metadata.original.bytes) else { return false }
            let actual = try? snapshot.withFileDescriptor(at: EntryStore.originalIndex) { fd -> Int64? in
                var info = stat()
                guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
                return Int64(info.st_size)
            }
            return actual == recorded
        }

        /// The original, opened for decoding in place rather than read into memory.
        func openOriginal() throws(PipelineError) -> StoredOriginal {
            try StoredOriginal(snapshot, index: EntryStore.originalIndex)
        }

        /// Whether the stored original has exactly these bytes, compared a chunk at a time.
        func hasOriginal(equalTo fetched: FetchedOriginal) throws(PipelineError) -> Bool {
            guard snapshot.length(at: EntryStore.originalIndex) == Int64(fetched.byteCount) else { return false }
            let reader: DiskLruValueReader
            do { reader = try snapshot.reader(at: EntryStore.originalIndex) } catch { throw .cache(error) }
            var same = true
            try fetched.forEachChunk { chunk throws(PipelineError) in
                var offset = 0
                while offset < chunk.count {
                    let stored: Data?
                    do throws(DiskLruError) { stored = try reader.read(upToCount: chunk.count - offset) } catch { throw .cache(error) }
                    guard let stored, !stored.isEmpty, stored.elementsEqual(chunk[offset..<offset + stored.count]) else {
                        same = false
                        return false  // no need to read the rest of either copy
                    }
                    offset += stored.count
                }
                return true
            }
            return same
        }
    }

    func entry(forKey key: String) throws(PipelineError) -> Entry? {
        do {
            guard let snapshot = try cache.snapshot(forKey: key) else { return nil }
            guard let known = try knownState(of: snapshot) else {
                // Written by an incompatible version: treat as a miss and let the next store replace it.
                snapshot.close()
                return nil
            }
            return Entry(metadata: known.metadata, snapshot: snapshot)
        } catch {
            throw .cache(error)
        }
    }

    /// The record of the snapshot's state: remembered, or read from its value 0 (which it must have opened) and
    /// remembered. Nil when that metadata is not ours to read (another version's), or, with `.residentOnly`,
    /// not in the page cache.
    private func knownState(of snapshot: DiskLruSnapshot, now: Date = Date(),
                            read: DiskRead = .waiting) throws(DiskLruError) -> KnownEntries.Known? {
        if let known = known.known(snapshot.key), known.sequenceNumber == snapshot.sequenceNumber { return known }
        let bytes = read == .waiting ? try snapshot.data(at: Self.metadataIndex)
            : try snapshot.dataIfResident(at: Self.metadataIndex, offset: 0, count: Int(snapshot.length(at: Self.metadataIndex)))
        guard let bytes, let metadata = CacheMetadata.decode(bytes) else { return nil }
        return known.remember(metadata, key: snapshot.key, sequenceNumber: snapshot.sequenceNumber, now: now)
    }

    /// A disk hit: the stored thumbnail of a ladder `size` in `format` (nil: the source's default format), read
    /// on its own when the entry is fresh at `now`. Only that size's value is opened, and only the thumbnail's
    /// bytes read from it, when the entry's state is known (`KnownEntries`); else its metadata too. Nil for
    /// anything a disk hit cannot answer alone: no entry, not fresh, no such thumbnail, a value that disagrees
    /// with its metadata (the full path then decides); with `.residentOnly`, bytes not in the page cache.
    /// `format`: the answer's format for the entry's original (`storedFormat`).
    func storedThumbnail(key: String, size: Int, now: Date, read: DiskRead = .waiting,
                         format decide: (CacheMetadata.Original) -> FormatDecision) throws(PipelineError) -> StoredHit? {
        guard let index = ladder.valueIndex(of: size) else { return nil }
        let remembered = known.known(key)
        do {
            guard let snapshot = try cache.snapshot(forKey: key, opening: { sequenceNumber in
                sequenceNumber == remembered?.sequenceNumber ? [index] : [Self.metadataIndex, index]
            }) else { return nil }
            defer { snapshot.close() }
            guard let entry = try knownState(of: snapshot, now: now, read: read), entry.isFresh(at: now) else { return nil }
            guard let format = storedFormat(size, decide(entry.metadata.original), of: entry.metadata),
                  let stored = entry.metadata.thumbnails.first(where: { $0.size == size }),
                  let range = stored.range(of: format.rawValue), !range.isEmpty,
                  snapshot.length(at: index) == Int64(stored.totalBytes) else { return nil }
            let data = read == .waiting ? try snapshot.data(at: index, offset: Int64(range.lowerBound), count: range.count)
                : try snapshot.dataIfResident(at: index, offset: Int64(range.lowerBound), count: range.count)
            guard let data, data.count == range.count else { return nil }
            var facts = entry.facts(size: size, format: format)
            if facts == nil {
                // Bytes of another format than the metadata says: not served from here (the full path decides).
                guard ImageFormat.sniff(data) == format, let info = try? ImageDecoder.probe(.data(data)) else { return nil }
                facts = KnownEntries.ThumbnailFacts(size: size, format: format, width: info.orientedWidth,
                                                    height: info.orientedHeight, digest: SHA256Digest.hex(bytes: data))
                known.add(facts!, key: key, sequenceNumber: snapshot.sequenceNumber)
            }
            return StoredHit(data: data, facts: facts!, freshUntil: entry.freshUntil, lastModified: entry.lastModified)
        } catch {
            throw .cache(error)
        }
    }

    /// The entry's record (metadata, until when fresh) when it is fresh at `now`; only its metadata value is
    /// opened, and not even that when the entry's state is known (`KnownEntries`). What a variant's disk hit asks.
    /// With `.residentOnly`, nil rather than wait for metadata not in the page cache.
    func freshState(key: String, now: Date, read: DiskRead = .waiting) throws(PipelineError) -> KnownEntries.Known? {
        let remembered = known.known(key)
        do {
            guard let snapshot = try cache.snapshot(forKey: key, opening: { sequenceNumber in
                sequenceNumber == remembered?.sequenceNumber ? [] : [Self.metadataIndex]
            }) else { return nil }
            defer { snapshot.close() }
            guard let entry = try knownState(of: snapshot, now: now, read: read),
                  entry.isFresh(at: now) else { return nil }
            return entry
        } catch {
            throw .cache(error)
        }
    }

    /// A thumbnail read by `storedThumbnail`, with what its answer needs.
    struct StoredHit: Sendable {
        let data: Data
        let facts: KnownEntries.ThumbnailFacts
        let freshUntil: Date
        let lastModified: Date?
    }

    /// Which stored thumbnail of `size` answers a request whose answer `decision` describes. A format preferred
    /// from `Accept` answers only when its fallback is stored beside it (such a render keeps both), and then
    /// whichever of the two `FormatFallback` chooses from their lengths; nil when not both are.
    func storedFormat(_ size: Int, _ decision: FormatDecision, of metadata: CacheMetadata) -> ImageFormat? {
        let format = decision.format
        guard let fallback = decision.fallback else { return format }
        guard let stored = metadata.thumbnails.first(where: { $0.size == size }),
              let asked = stored.range(of: format.rawValue), !asked.isEmpty,
              let other = stored.range(of: fallback.rawValue), !other.isEmpty else { return nil }
        return FormatFallback.keepsNegotiated(asked.count, over: other.count) ? format : fallback
    }

    /// The stored thumbnail of `size` in `format`: a slice of that size's value. Nil when it is not stored, or
    /// when the value's length disagrees with the metadata (a damaged entry is rendered again, not misread).
    func thumbnail(_ size: Int, format: ImageFormat, of entry: Entry) throws(PipelineError) -> Data? {
        guard let stored = entry.metadata.thumbnails.first(where: { $0.size == size }),
              let range = stored.range(of: format.rawValue), let index = ladder.valueIndex(of: size),
              entry.snapshot.length(at: index) == Int64(stored.totalBytes) else { return nil }
        do {
            let data = try entry.snapshot.data(at: index)
            guard data.count == stored.totalBytes, !range.isEmpty else { return nil }
            return data.subdata(in: range)
        } catch {
            throw .cache(error)
        }
    }

    /// Stores a freshly fetched original (dropping every thumbnail of the previous one), or, when
    /// `metadata` belongs to the stored fetch already, just adds the thumbnail.
    /// Returns the bytes written, and whether the original was written (else only a thumbnail was added).
    @discardableResult
    func save(key: String, metadata: CacheMetadata, original: FetchedOriginal, thumbnail: StoredThumbnail?) throws(PipelineError)
        -> (bytes: Int, newOriginal: Bool) {
        writeLock.lock()
        defer { writeLock.unlock() }
        try beginAccess()
        defer { cache.endAccess() }
        do {
            let current = try entry(forKey: key)
            defer { current?.snapshot.close() }
            if let current, current.metadata.responseTime == metadata.responseTime, current.metadata.url == metadata.url,
               current.metadata.original.digest == metadata.original.digest {
                guard let thumbnail else { return (0, false) }
                return (try addThumbnailLocked(key: key, current: current, thumbnail: thumbnail), false)
            }
            var stored = metadata
            // Every value is written, so a previous original's thumbnails become empty values.
            var values = [Data](repeating: Data(), count: ladder.valueCount)
            stored.thumbnails = []
            if let thumbnail, let index = ladder.valueIndex(of: thumbnail.size) {
                values[index] = thumbnail.data
                stored.thumbnails = [.init(size: thumbnail.size, parts: [.init(format: thumbnail.format.rawValue, bytes: thumbnail.data.count)])]
            }
            values[Self.metadataIndex] = stored.encoded()
            guard let editor = try cache.edit(key) else { throw DiskLruError.editInProgress(key: key) }
            do {
                for (index, value) in values.enumerated() where index != Self.originalIndex { try editor.set(value, at: index) }
                // The original is streamed from its download file, never loaded whole.
                let writer = try editor.writer(at: Self.originalIndex)
                try original.forEachChunk { bytes throws(PipelineError) in
                    do throws(DiskLruError) { try writer.write(bytes) } catch { throw .cache(error) }
                    return true
                }
                try writer.close()
                try editor.commit()
            } catch {
                editor.abortUnlessCommitted()
                throw error
            }
            return (values.reduce(original.byteCount) { $0 + $1.count }, true)
        } catch {
            throw .stored(error)
        }
    }

    /// Adds a thumbnail made from the original of `digest` to the stored entry, when that entry holds the same
    /// original; a no-op when the original changed meanwhile (a render of the old one must not join the new).
    /// A revalidation in between (a 304: new headers, same original) does not stop it.
    @discardableResult
    func addThumbnail(key: String, madeFrom digest: String, thumbnail: StoredThumbnail) throws(PipelineError) -> Int {
        writeLock.lock()
        defer { writeLock.unlock() }
        try beginAccess()
        defer { cache.endAccess() }
        guard let current = try entry(forKey: key) else { return 0 }
        defer { current.snapshot.close() }
        guard current.metadata.original.digest == digest else { return 0 }
        return try addThumbnailLocked(key: key, current: current, thumbnail: thumbnail)
    }

    /// Appends the thumbnail to its size's value (rewriting that value whole, with the metadata, in one
    /// `setPartialData`); a no-op when that size already has this format.
    private func addThumbnailLocked(key: String, current: Entry, thumbnail: StoredThumbnail) throws(PipelineError) -> Int {
        let format = thumbnail.format.rawValue
        guard let index = ladder.valueIndex(of: thumbnail.size),
              !current.metadata.formats(ofSize: thumbnail.size).contains(format) else { return 0 }
        var updated = current.metadata
        var value = Data()
        var sized = CacheMetadata.StoredSize(size: thumbnail.size, parts: [])
        if let position = updated.thumbnails.firstIndex(where: { $0.size == thumbnail.size }) {
            let existing = updated.thumbnails[position]
            do { value = try current.snapshot.data(at: index) } catch { throw .cache(error) }
            // A value that disagrees with its metadata is replaced by the new thumbnail alone.
            if value.count == existing.totalBytes { sized = existing } else { value = Data() }
            updated.thumbnails.remove(at: position)
        }
        value.append(thumbnail.data)
        sized.parts.append(.init(format: format, bytes: thumbnail.data.count))
        updated.thumbnails.append(sized)
        updated.thumbnails.sort { $0.size < $1.size }
        let metadata = updated.encoded()
        do {
            try cache.setPartialData([Self.metadataIndex: metadata, index: value], forKey: key)
        } catch {
            throw .cache(error)
        }
        return metadata.count + thumbnail.data.count
    }

    /// Replaces only the metadata (after a 304, or the same bytes again): the original and its thumbnails stay.
    /// Written only while the entry still holds the original `metadata` describes: a revalidation answered for the
    /// old original must not put its digest (and headers) on a new one stored meanwhile, by this process or
    /// another, or renders of the old original would be accepted for the new. The thumbnail list is the entry's
    /// own at the write (one added while the request was out is kept). Returns whether it was written.
    @discardableResult
    func updateMetadata(key: String, _ metadata: CacheMetadata) throws(PipelineError) -> Bool {
        writeLock.lock()
        defer { writeLock.unlock() }
        try beginAccess()
        defer { cache.endAccess() }
        guard let current = try entry(forKey: key) else { return false }
        defer { current.snapshot.close() }
        guard current.metadata.original == metadata.original, current.metadata.url == metadata.url else { return false }
        var updated = metadata
        updated.thumbnails = current.metadata.thumbnails
        do {
            try cache.setPartialData([Self.metadataIndex: updated.encoded()], forKey: key)
        } catch .entryNotFound {
            // Another process removed or evicted the entry since we read it: nothing left to update.
            return false
        } catch {
            throw .cache(error)
        }
        return true
    }

    /// The digest of the original stored for `key` (`CacheMetadata.Original.digest`), or nil when there is none;
    /// only the metadata is read, and not even that when the entry's state is known (`KnownEntries`).
    func storedOriginalDigest(key: String) -> String? {
        let remembered = known.known(key)
        guard let snapshot = try? cache.snapshot(forKey: key, opening: { sequenceNumber in
            sequenceNumber == remembered?.sequenceNumber ? [] : [Self.metadataIndex]
        }) else { return nil }
        defer { snapshot.close() }
        return (try? knownState(of: snapshot))?.metadata.original.digest
    }

    func remove(key: String) {
        _ = try? cache.remove(key)
    }

    /// Takes the cache directory for a read-modify-write, so no other process interleaves.
    private func beginAccess() throws(PipelineError) {
        do { try cache.beginAccess() } catch { throw .cache(error) }
    }
}

/// A thumbnail on its way to the disk: a ladder size in one format.
struct StoredThumbnail: Sendable {
    var size: Int
    var format: ImageFormat
    var data: Data
}
