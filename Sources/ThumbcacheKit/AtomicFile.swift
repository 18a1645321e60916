import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Replaces a file atomically (write a temporary beside it, rename over it) without fsync. Foundation's
/// `Data.write(to:)` fsyncs every file on Linux; for a thumbnail handed to the user or the hit counters,
/// atomicity matters (no reader sees half a file) but durability does not, and two fsyncs cost a disk hit
/// more than all its other work.
public enum AtomicFile {
    public struct Failure: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "cannot write \(path): \(reason)" }
    }

    public static func replace(_ path: String, with data: Data) throws(Failure) {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
        var failure: Int32 = 0
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += n
            }
        }
        close(fd)
        if failure == 0 && rename(temporary, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporary)
            throw Failure(path: path, reason: String(cString: strerror(failure)))
        }
    }
}
