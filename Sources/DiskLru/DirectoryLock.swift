#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock` on `<directory>/journal.lock`, held for the cache's lifetime.
/// flock locks belong to the open file description, so a second cache object in the same process
/// is refused just like a second process, and the kernel drops the lock if the process dies.
struct DirectoryLock: ~Copyable {
    private let fd: Int32

    init(directory: String, policy: DiskLruOptions.Locking) throws(DiskLruError) {
        let path = directory + "/" + DiskLruCache.lockFileName
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(operation: "open lock file", path: path, errno: errno) }
        do {
            try DirectoryLock.acquire(fd: fd, directory: directory, policy: policy)
        } catch {
            close(fd)
            throw error
        }
        self.fd = fd
    }

    private static func acquire(fd: Int32, directory: String, policy: DiskLruOptions.Locking) throws(DiskLruError) {
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { return }
        guard errno == EWOULDBLOCK else {
            throw .io(operation: "lock", path: directory + "/" + DiskLruCache.lockFileName, errno: errno)
        }
        guard case .wait(let timeout) = policy else { throw .locked(directory: directory) }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        // Poll rather than block in flock(LOCK_EX): a blocking flock cannot honour a timeout.
        while clock.now < deadline {
            usleep(20_000)
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return }
        }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        throw .lockTimeout(directory: directory, seconds: seconds)
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
