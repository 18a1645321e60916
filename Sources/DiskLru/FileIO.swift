#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Thin, throwing wrappers over the POSIX calls DiskLru needs. Raw syscalls keep the hot paths
/// (commit, snapshot) free of Foundation's per-call overhead and give us the real errno for errors.
enum FileIO {
    static func openForReading(_ path: String) throws(DiskLruError) -> Int32 {
        let fd = retryingEINTR { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw .io(operation: "open", path: path, errno: errno) }
        return fd
    }

    /// Opens `path` for writing, truncating it. When the directory has vanished (deleted underneath us)
    /// it is recreated once, as the references do.
    static func createTruncating(_ path: String, directory: String) throws(DiskLruError) -> Int32 {
        var fd = retryingEINTR { open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        if fd < 0 && errno == ENOENT {
            try makeDirectory(directory)
            fd = retryingEINTR { open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        }
        guard fd >= 0 else { throw .io(operation: "create", path: path, errno: errno) }
        return fd
    }

    static func openForAppending(_ path: String) throws(DiskLruError) -> Int32 {
        let fd = retryingEINTR { open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { throw .io(operation: "open for append", path: path, errno: errno) }
        return fd
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(DiskLruError) {
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(operation: "write", path: path, errno: errno)
            }
            offset += n
        }
    }

    static func writeAll(_ fd: Int32, _ data: Data, path: String) throws(DiskLruError) {
        try data.withUnsafeBytes { raw in
            Result { () throws(DiskLruError) in try writeAll(fd, raw, path: path) }
        }.get()
    }

    /// Reads the whole file behind `fd` from offset 0 (pread: a shared descriptor keeps no position).
    /// With `expectedLength` (the journal's record) one pread of length+1 bytes usually finds the end, saving
    /// an fstat on the hot read path; a file longer than expected falls back to fstat and reads it all.
    static func readAll(_ fd: Int32, path: String, expectedLength: Int64? = nil) throws(DiskLruError) -> Data {
        if let expected = expectedLength, expected >= 0, expected < Int64(Int32.max) {
            let data = try read(fd, path: path, upTo: Int(expected) + 1)
            if data.count <= Int(expected) { return data }
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io(operation: "stat", path: path, errno: errno) }
        return try read(fd, path: path, upTo: max(Int(info.st_size), 0))
    }

    /// Up to `size` bytes from `offset`, fewer if the file ends first.
    static func read(_ fd: Int32, path: String, upTo size: Int, at offset: Int64 = 0) throws(DiskLruError) -> Data {
        // Uninitialised storage handed to Data without a copy: no zero-fill of a buffer pread overwrites.
        let storage = UnsafeMutableRawPointer.allocate(byteCount: max(size, 1), alignment: 16)
        var filled = 0
        while filled < size {
            let n = pread(fd, storage + filled, size - filled, off_t(offset) + off_t(filled))
            if n < 0 {
                if errno == EINTR { continue }
                let failure = errno
                storage.deallocate()
                throw .io(operation: "read", path: path, errno: failure)
            }
            if n == 0 { break }
            filled += n
        }
        return Data(bytesNoCopy: storage, count: filled, deallocator: .custom { pointer, _ in pointer.deallocate() })
    }

    /// `read(_:path:upTo:at:)` when every byte asked for is in the page cache, else nil at once rather than
    /// waiting for the disk: `preadv2` with `RWF_NOWAIT` (Linux 4.14; found at run time, as Glibc's module does
    /// not export it). Nil too where the system cannot tell (no such call, a filesystem without it).
    static func readIfResident(_ fd: Int32, path: String, upTo size: Int, at offset: Int64) throws(DiskLruError) -> Data? {
        #if os(Linux)
        guard let preadv2 = preadv2 else { return nil }
        let storage = UnsafeMutableRawPointer.allocate(byteCount: max(size, 1), alignment: 16)
        var filled = 0
        while filled < size {
            var vector = iovec(iov_base: storage + filled, iov_len: size - filled)
            let n = preadv2(fd, &vector, 1, off_t(offset) + off_t(filled), rwfNoWait)
            if n < 0 {
                if errno == EINTR { continue }
                let failure = errno
                storage.deallocate()
                if failure == EAGAIN || failure == EOPNOTSUPP || failure == ENOSYS { return nil }
                throw .io(operation: "read", path: path, errno: failure)
            }
            if n == 0 { break }
            filled += n
        }
        return Data(bytesNoCopy: storage, count: filled, deallocator: .custom { pointer, _ in pointer.deallocate() })
        #else
        return nil
        #endif
    }

    #if os(Linux)
    private typealias PReadV2 = @convention(c) (Int32, UnsafePointer<iovec>?, Int32, off_t, Int32) -> Int
    /// `RWF_NOWAIT` from linux/fs.h: fail with EAGAIN rather than wait for I/O.
    private static let rwfNoWait: Int32 = 0x08
    private static let preadv2: PReadV2? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "preadv2")
        .map { unsafeBitCast($0, to: PReadV2.self) }
    #endif

    static func readFile(_ path: String) throws(DiskLruError) -> [UInt8]? {
        let fd = retryingEINTR { open(path, O_RDONLY | O_CLOEXEC) }
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw .io(operation: "open", path: path, errno: errno)
        }
        defer { close(fd) }
        return [UInt8](try readAll(fd, path: path))
    }

    static func fileLength(_ path: String) throws(DiskLruError) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .io(operation: "stat", path: path, errno: errno) }
        return Int64(info.st_size)
    }

    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Deletes a file; a file that is already gone is fine.
    static func deleteIfExists(_ path: String) throws(DiskLruError) {
        if unlink(path) != 0 && errno != ENOENT {
            throw .io(operation: "delete", path: path, errno: errno)
        }
    }

    /// Renames atomically over any existing destination. Returns false when `from` does not exist.
    @discardableResult
    static func rename(_ from: String, to: String) throws(DiskLruError) -> Bool {
        if Glibc.rename(from, to) != 0 {
            if errno == ENOENT && !exists(from) { return false }
            throw .io(operation: "rename to \(to)", path: from, errno: errno)
        }
        return true
    }

    static func sync(_ fd: Int32, path: String) throws(DiskLruError) {
        if fsync(fd) != 0 { throw .io(operation: "fsync", path: path, errno: errno) }
    }

    static func syncFile(_ path: String) throws(DiskLruError) {
        let fd = retryingEINTR { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw .io(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        try sync(fd, path: path)
    }

    static func syncDirectory(_ path: String) throws(DiskLruError) {
        let fd = retryingEINTR { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw .io(operation: "open directory", path: path, errno: errno) }
        defer { close(fd) }
        try sync(fd, path: path)
    }

    static func makeDirectory(_ path: String) throws(DiskLruError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw .io(operation: "create directory", path: path, errno: (error as NSError).code == 0 ? EIO : Int32(errno))
        }
    }

    /// Deletes the plain files in `directory` whose names satisfy `isIncluded`; sub-directories are never touched.
    static func deleteFiles(in directory: String, where isIncluded: (String) -> Bool) throws(DiskLruError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            if !exists(directory) { return }
            throw .io(operation: "list", path: directory, errno: EIO)
        }
        for name in names where isIncluded(name) {
            let path = directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else { continue }
            try deleteIfExists(path)
        }
    }

    static func closeDescriptor(_ fd: Int32) {
        _ = close(fd)
    }

    private static func retryingEINTR(_ call: () -> Int32) -> Int32 {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}
