import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes an output file so that no reader sees half of it and nothing but the named file is touched.
///
/// A regular file (or a name not yet taken) is written to a temporary beside it, created exclusively under
/// an unpredictable name (`O_CREAT|O_EXCL|O_NOFOLLOW`, so nothing planted there is followed or reused),
/// then renamed over it; a symbolic link at the name is replaced, not followed. A character device or a
/// FIFO (`/dev/null`, a named pipe, `/dev/stdout` on a pipe) is written in place: renaming over it would
/// replace the device. A name that is this process's standard output or error (`/dev/stdout` redirected to
/// a file) is written through that descriptor. Nothing is fsynced: Foundation's `Data.write(to:)` fsyncs
/// every file on Linux, and for a thumbnail handed to the user or the hit counters atomicity matters
/// (no reader sees half a file) but durability does not; two fsyncs cost a disk hit more than its other work.
package enum AtomicFile {
    package static func replace(_ path: String, with data: Data) throws(FileOutput.Failure) {
        let file = try Writer(path)
        try file.write(data)
        try file.commit()
    }

    /// An output being written, for callers that stream (the warm report). Dropping it before `commit()`
    /// removes the temporary and leaves the named file as it was.
    package final class Writer {
        package let path: String
        private var fd: Int32
        /// Nil when writing in place.
        private let temporary: String?
        /// Whether `fd` is the process's own standard output or error, which must stay open.
        private let borrowed: Bool

        package init(_ path: String) throws(FileOutput.Failure) {
            self.path = path
            var target = stat()
            guard stat(path, &target) == 0 else {
                guard errno == ENOENT else { throw FileOutput.Failure(target: path, errno: errno) }
                (fd, temporary) = try Self.createTemporary(beside: path)
                borrowed = false
                return
            }
            switch target.st_mode & S_IFMT {
            case S_IFREG:
                if let standard = Self.standardDescriptor(sameFileAs: target) {
                    (fd, temporary, borrowed) = (standard, nil, true)
                    return
                }
                (fd, temporary) = try Self.createTemporary(beside: path)
            case S_IFCHR, S_IFIFO:
                // No O_CREAT or O_TRUNC: the device or pipe is written as it is. A FIFO waits for a reader here.
                fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)
                guard fd >= 0 else { throw FileOutput.Failure(target: path, errno: errno) }
                var opened = stat()
                guard fstat(fd, &opened) == 0, [S_IFCHR, S_IFIFO].contains(opened.st_mode & S_IFMT) else {
                    close(fd)
                    throw FileOutput.Failure(target: path, reason: "it was replaced while being opened")
                }
                temporary = nil
            case S_IFDIR:
                throw FileOutput.Failure(target: path, errno: EISDIR)
            default:
                throw FileOutput.Failure(target: path, reason: "not a regular file, character device or FIFO")
            }
            borrowed = false
        }

        package func write(_ data: some DataProtocol) throws(FileOutput.Failure) {
            try FileOutput.writeAll(data, to: fd, target: path)
        }

        /// Puts the written bytes in place: renames the temporary over the name, or ends the in-place write.
        package func commit() throws(FileOutput.Failure) {
            guard fd >= 0 else { return }
            let descriptor = fd
            fd = -1
            if borrowed { return }
            // close can report a deferred write error (NFS, quotas): the file would be short.
            var failure: Int32 = close(descriptor) == 0 ? 0 : errno
            if let temporary {
                if failure == 0 && rename(temporary, path) != 0 { failure = errno }
                if failure != 0 { unlink(temporary) }
            }
            if failure != 0 { throw FileOutput.Failure(target: path, errno: failure) }
        }

        deinit {
            guard fd >= 0, !borrowed else { return }
            close(fd)
            if let temporary { unlink(temporary) }
        }

        /// A new file in the target's directory, under a name nobody can guess, mode 0666 less the umask
        /// (as any new file).
        private static func createTemporary(beside path: String) throws(FileOutput.Failure) -> (Int32, String) {
            let slash = path.lastIndex(of: "/")
            let directory = slash.map { String(path[...$0]) } ?? ""
            // Room for the suffix within NAME_MAX (255 bytes).
            var base = ""
            for scalar in (slash.map { path[path.index(after: $0)...] } ?? Substring(path)).unicodeScalars {
                guard base.utf8.count + String(scalar).utf8.count <= 200 else { break }
                base.unicodeScalars.append(scalar)
            }
            var lastError: Int32 = EEXIST
            for _ in 0..<16 {
                let name = "\(directory)\(base).tmp-\(randomSuffix())"
                let fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
                if fd >= 0 { return (fd, name) }
                lastError = errno
                guard lastError == EEXIST else { break }
            }
            throw FileOutput.Failure(target: path, errno: lastError)
        }

        private static func randomSuffix() -> String {
            let alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
            var generator = SystemRandomNumberGenerator()
            return String((0..<16).compactMap { _ in alphabet.randomElement(using: &generator) })
        }

        /// Standard output or error, if it is open for writing on `target` (`-o /dev/stdout > file`).
        private static func standardDescriptor(sameFileAs target: stat) -> Int32? {
            [STDOUT_FILENO, STDERR_FILENO].first { fd in
                var standard = stat()
                return fstat(fd, &standard) == 0 && standard.st_dev == target.st_dev && standard.st_ino == target.st_ino
                    && fcntl(fd, F_GETFL) & O_ACCMODE != O_RDONLY
            }
        }
    }
}
