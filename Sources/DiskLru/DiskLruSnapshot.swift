import Foundation

/// The values of one entry as they were when the snapshot was taken. Its value files are opened up front,
/// so a later commit (rename over) or removal (unlink) cannot change what this snapshot reads: every value,
/// or only those asked for (`DiskLruCache.snapshot(forKey:opening:)`; reading another throws).
/// Close it when done; it also closes itself when released.
public final class DiskLruSnapshot: @unchecked Sendable {
    public let key: String
    /// Changes with every commit of the entry, and when another process's change reloads the journal: within
    /// one `DiskLruCache` object, a key and its sequence number name one published state of the entry.
    /// `edit()` uses it to refuse stale snapshots.
    public let sequenceNumber: Int64
    private let lengths: [Int64]
    /// The cache's directory: a value's path is made only for an error message.
    private let directory: String
    private let cache: DiskLruCache
    /// Guards `descriptors`. NSLock (a pthread mutex) rather than Synchronization.Mutex, whose contended
    /// path ThreadSanitizer cannot see on Linux.
    private let lock = NSLock()
    /// -1 for a value this snapshot did not open.
    private var descriptors: [Int32]

    init(cache: DiskLruCache, key: String, sequenceNumber: Int64, lengths: [Int64], descriptors: [Int32], directory: String) {
        self.cache = cache
        self.key = key
        self.sequenceNumber = sequenceNumber
        self.lengths = lengths
        self.descriptors = descriptors
        self.directory = directory
    }

    /// The recorded length of value `index` (as the journal says; OkHttp copies these too).
    public func length(at index: Int) -> Int64 {
        lengths[index]
    }

    /// Reads the whole value `index`.
    public func data(at index: Int) throws(DiskLruError) -> Data {
        try withDescriptor(index) { fd throws(DiskLruError) in
            try FileIO.readAll(fd, path: path(index), expectedLength: lengths[index])
        }
    }

    /// Reads the whole value `index` as UTF-8 text (the references' `getString`); bytes that are not UTF-8 read
    /// as U+FFFD, as Java's decoder reads them.
    public func string(at index: Int) throws(DiskLruError) -> String {
        String(decoding: try data(at: index), as: UTF8.self)
    }

    /// Reads `count` bytes of value `index` from `offset` (one pread), or fewer where the value ends first.
    public func data(at index: Int, offset: Int64, count: Int) throws(DiskLruError) -> Data {
        guard offset >= 0, count >= 0 else { throw .invalidArgument("a range from \(offset) of \(count) bytes") }
        return try withDescriptor(index) { fd throws(DiskLruError) in
            try FileIO.read(fd, path: path(index), upTo: count, at: offset)
        }
    }

    /// The same bytes as `data(at:offset:count:)` when they are all in the page cache, else nil without waiting
    /// for the disk (nil also where the system cannot tell): for a reader that must not block, an event loop.
    public func dataIfResident(at index: Int, offset: Int64, count: Int) throws(DiskLruError) -> Data? {
        guard offset >= 0, count >= 0 else { throw .invalidArgument("a range from \(offset) of \(count) bytes") }
        return try withDescriptor(index) { fd throws(DiskLruError) in
            try FileIO.readIfResident(fd, path: path(index), upTo: count, at: offset)
        }
    }

    /// Streams value `index` in chunks.
    public func reader(at index: Int) throws(DiskLruError) -> DiskLruValueReader {
        try withDescriptor(index) { _ in }
        return DiskLruValueReader(snapshot: self, index: index)
    }

    /// Runs `body` with the open descriptor of value `index`, for reading the value in place (pread, or a new
    /// open of `/proc/self/fd/<fd>` on Linux, which reaches the same file even after a commit replaced it).
    /// The descriptor is the snapshot's: valid only inside `body`, and not to be closed or read with `read(2)`.
    public func withFileDescriptor<T>(at index: Int, _ body: (Int32) -> T) throws(DiskLruError) -> T {
        try withDescriptor(index) { fd in body(fd) }
    }

    /// An editor for this entry, or nil if it changed (committed, removed, evicted) since the snapshot.
    public func edit() throws(DiskLruError) -> DiskLruEditor? {
        try cache.edit(key, expectedSequenceNumber: sequenceNumber, requireExisting: false)
    }

    public func close() {
        lock.lock()
        let open = descriptors
        descriptors = []
        lock.unlock()
        for fd in open where fd >= 0 { FileIO.closeDescriptor(fd) }
    }

    /// Runs `body` with the descriptor of value `index`, holding the lock so `close()` cannot pull it away.
    func withDescriptor<T>(_ index: Int, _ body: (Int32) throws(DiskLruError) -> T) throws(DiskLruError) -> T {
        guard (0..<lengths.count).contains(index) else {
            throw .invalidArgument("value index \(index) is outside 0..<\(lengths.count)")
        }
        lock.lock()
        defer { lock.unlock() }
        guard !descriptors.isEmpty else { throw .snapshotClosed }
        guard descriptors[index] >= 0 else { throw .invalidArgument("value \(index) was not opened by this snapshot") }
        return try body(descriptors[index])
    }

    func path(_ index: Int) -> String { directory + "/" + key + "." + String(index) }

    deinit {
        close()
    }
}

/// Reads one snapshot value in chunks, from the start.
public final class DiskLruValueReader: @unchecked Sendable {
    private let snapshot: DiskLruSnapshot
    private let index: Int
    private let lock = NSLock()
    private var offset: Int64 = 0  // guarded by `lock`

    init(snapshot: DiskLruSnapshot, index: Int) {
        self.snapshot = snapshot
        self.index = index
    }

    /// Up to `count` further bytes, or nil at the end of the value.
    public func read(upToCount count: Int) throws(DiskLruError) -> Data? {
        lock.lock()
        defer { lock.unlock() }
        let chunk = try snapshot.withDescriptor(index) { fd throws(DiskLruError) -> Data in
                var data = Data(count: count)
                var failure: Int32 = 0
                let n = data.withUnsafeMutableBytes { raw -> Int in
                    while true {
                        let n = pread(fd, raw.baseAddress!, count, off_t(offset))
                        if n < 0 && errno == EINTR { continue }
                        if n < 0 { failure = errno }
                        return n
                    }
                }
                if n < 0 { throw .io(operation: "read", path: snapshot.path(index), errno: failure) }
                data.removeSubrange(n...)
                return data
            }
        if chunk.isEmpty { return nil }
        offset += Int64(chunk.count)
        return chunk
    }
}

/// Published entries in LRU order, each opened as it is reached (see `DiskLruCache.snapshots()`).
public struct DiskLruSnapshotSequence: Sequence, Sendable {
    let cache: DiskLruCache
    let keys: [String]

    public func makeIterator() -> Iterator {
        Iterator(cache: cache, keys: keys[...])
    }

    public struct Iterator: IteratorProtocol {
        let cache: DiskLruCache
        var keys: ArraySlice<String>

        public mutating func next() -> DiskLruSnapshot? {
            while let key = keys.popFirst() {
                if let snapshot = cache.iterationSnapshot(forKey: key) { return snapshot }
            }
            return nil
        }
    }
}
