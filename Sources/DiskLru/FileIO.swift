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

    /// Reads the whole file behind `fd` from offset 0. Value files are replaced by rename, never modified
    /// in place, so the size from fstat is the size to read; pread leaves no shared position behind.
    static func readAll(_ fd: Int32, path: String) throws(DiskLruError) -> Data {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io(operation: "stat", path: path, errno: errno) }
        let size = max(Int(info.st_size), 0)
        var data = Data(count: size)
        var filled = 0
        var failure: Int32 = 0
        data.withUnsafeMutableBytes { raw in
            while filled < size {
                let n = pread(fd, raw.baseAddress! + filled, size - filled, off_t(filled))
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if n == 0 { return }  // truncated underneath us: return what is there
                filled += n
            }
        }
        if failure != 0 { throw .io(operation: "read", path: path, errno: failure) }
        if filled < size { data.removeSubrange(filled...) }
        return data
    }

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

    /// Deletes everything inside `directory` (files and sub-directories), except the names in `keeping`.
    static func deleteContents(of directory: String, keeping: Set<String> = []) throws(DiskLruError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            if !exists(directory) { return }
            throw .io(operation: "list", path: directory, errno: EIO)
        }
        for name in names where !keeping.contains(name) {
            let path = directory + "/" + name
            do {
                try FileManager.default.removeItem(atPath: path)
            } catch {
                if exists(path) { throw .io(operation: "delete", path: path, errno: EIO) }
            }
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
