import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writing bytes to an open descriptor (a file, standard output, a pipe), all of them or a typed error.
/// `FileHandle.write` traps on a closed pipe, a closed descriptor or a full disk; output is input-driven,
/// so every write of the CLI and of `AtomicFile` goes through here instead.
package enum FileOutput {
    /// A write that did not complete: what was being written and the system's reason, on one line.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package let target: String
        package let reason: String

        package init(target: String, reason: String) {
            self.target = target
            self.reason = reason
        }

        package init(target: String, errno code: Int32) {
            self.init(target: target, reason: String(cString: strerror(code)))
        }

        package var description: String { "cannot write \(target): \(reason)" }
    }

    /// Writes every byte of `data` to `fd`, resuming after short writes, EINTR and EAGAIN (a non-blocking
    /// descriptor inherited from the shell).
    package static func writeAll(_ data: some DataProtocol, to fd: Int32, target: String) throws(Failure) {
        for region in data.regions {
            let failure: Int32 = region.withUnsafeBytes { raw in
                guard var next = raw.baseAddress else { return 0 }
                var remaining = raw.count
                while remaining > 0 {
                    let written = write(fd, next, remaining)
                    if written > 0 {
                        next += written
                        remaining -= written
                    } else if written < 0 && errno == EINTR {
                        continue
                    } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                        var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                        _ = poll(&ready, 1, -1)
                    } else {
                        return written < 0 ? errno : EIO
                    }
                }
                return 0
            }
            if failure != 0 { throw Failure(target: target, errno: failure) }
        }
    }
}
