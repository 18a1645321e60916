#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Appends journal records. Records are buffered in memory and reach the file in whole lines only:
/// a failed write is cut back to the last complete line, so the journal on disk is never left with
/// a torn record (the JakeWharton 2.0.2 corruption, spec §2.4) even when the disk fills up.
final class JournalWriter {
    let path: String
    private var fd: Int32
    private var buffer: [UInt8] = []
    /// Bytes of the file known to end on a record boundary.
    private var durableLength: off_t
    private let syncOnFlush: Bool

    /// How much unflushed `READ`/`REMOVE` text we keep before writing it out anyway (like the references' 8 KiB).
    private static let bufferLimit = 8192

    init(path: String, syncOnFlush: Bool) throws(DiskLruError) {
        self.path = path
        self.fd = try FileIO.openForAppending(path)
        self.syncOnFlush = syncOnFlush
        self.durableLength = lseek(fd, 0, SEEK_END)
        buffer.reserveCapacity(JournalWriter.bufferLimit + 256)
    }

    /// Queues one record, e.g. `("READ", "k1", nil)` → `READ k1\n`.
    func append(_ kind: StaticString, _ key: String, lengths: [Int64]? = nil) {
        buffer.append(contentsOf: UnsafeRawBufferPointer(start: kind.utf8Start, count: kind.utf8CodeUnitCount))
        buffer.append(0x20)
        buffer.append(contentsOf: key.utf8)
        if let lengths {
            for length in lengths {
                buffer.append(0x20)
                buffer.append(contentsOf: String(length).utf8)
            }
        }
        buffer.append(0x0A)
    }

    /// Appends and writes through at once (DIRTY, and the CLEAN/REMOVE of a finished edit).
    func appendAndFlush(_ kind: StaticString, _ key: String, lengths: [Int64]? = nil) throws(DiskLruError) {
        append(kind, key, lengths: lengths)
        try flush()
    }

    /// Appends a buffered record, writing the buffer out only once it is large.
    func appendBuffered(_ kind: StaticString, _ key: String) throws(DiskLruError) {
        append(kind, key)
        if buffer.count >= JournalWriter.bufferLimit { try flush(sync: false) }
    }

    func flush(sync: Bool? = nil) throws(DiskLruError) {
        if buffer.isEmpty { return }
        let result = buffer.withUnsafeBytes { raw in
            Result { () throws(DiskLruError) in try FileIO.writeAll(fd, raw, path: path) }
        }
        if case .failure(let result) = result {
            // Drop whatever part of the buffer made it out: the file ends on a whole record again.
            _ = ftruncate(fd, durableLength)
            buffer.removeAll(keepingCapacity: true)
            throw result
        }
        durableLength += off_t(buffer.count)
        buffer.removeAll(keepingCapacity: true)
        if sync ?? syncOnFlush { try FileIO.sync(fd, path: path) }
    }

    func close() throws(DiskLruError) {
        defer {
            FileIO.closeDescriptor(fd)
            fd = -1
        }
        try flush()
    }

    /// Closes without writing what is buffered (after a failure, or when the file is being replaced).
    func discard() {
        buffer.removeAll()
        if fd >= 0 { FileIO.closeDescriptor(fd) }
        fd = -1
    }

    deinit {
        if fd >= 0 { FileIO.closeDescriptor(fd) }
    }
}
