import Foundation

/// Streams one value into its `.tmp` file. Obtained from `DiskLruEditor.writer(at:)`.
/// A writer of a detached editor discards what it is given.
public final class DiskLruValueWriter: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    private var fd: Int32
    private var length: Int64 = 0
    private var failure: DiskLruError?
    private let path: String
    private let onClose: ((Int64, DiskLruError?) -> Void)?

    init(fd: Int32, path: String, onClose: @escaping (Int64, DiskLruError?) -> Void) {
        self.fd = fd
        self.path = path
        self.onClose = onClose
    }

    private init() {
        self.fd = -1
        self.path = "/dev/null"
        self.onClose = nil
    }

    static func discarding() -> DiskLruValueWriter { DiskLruValueWriter() }

    public func write(_ data: Data) throws(DiskLruError) {
        try data.withUnsafeBytes { raw in
            Result { () throws(DiskLruError) in try write(raw) }
        }.get()
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(DiskLruError) {
        lock.lock()
        defer { lock.unlock() }
        guard onClose != nil else { return }  // discarding writer
        guard fd >= 0 else { throw .editorFinished }
        do throws(DiskLruError) {
            try FileIO.writeAll(fd, bytes, path: path)
            length += Int64(bytes.count)
        } catch {
            failure = error
            throw error
        }
    }

    /// Finishes the value. Safe to call more than once.
    public func close() throws(DiskLruError) {
        let finished: (Int64, DiskLruError?)? = lock.withLock {
            guard fd >= 0 else { return nil }
            FileIO.closeDescriptor(fd)
            fd = -1
            return (length, failure)
        }
        guard let (length, failure) = finished else { return }
        // A failed write is reported to the editor, whose commit then refuses to publish a partial value.
        onClose?(length, failure)
    }

    func closeQuietly() {
        try? close()
    }

    deinit {
        if fd >= 0 { FileIO.closeDescriptor(fd) }
    }
}
