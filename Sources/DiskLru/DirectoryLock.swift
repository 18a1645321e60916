#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock` on `<directory>/journal.lock`, taken for the cache's lifetime or, with
/// `DiskLruOptions.Holding.perAccess`, for each access. The lock file stays open either way.
/// flock locks belong to the open file description, so a second cache object in the same process
/// is refused just like a second process, and the kernel drops the lock if the process dies.
final class DirectoryLock {
    private let fd: Int32
    private let directory: String
    private let policy: DiskLruOptions.Locking
    private(set) var isHeld = false

    init(directory: String, policy: DiskLruOptions.Locking) throws(DiskLruError) {
        let path = directory + "/" + DiskLruCache.lockFileName
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(operation: "open lock file", path: path, errno: errno) }
        self.fd = fd
        self.directory = directory
        self.policy = policy
    }

    /// Takes the lock as the policy says: at once, or polling until the timeout.
    func acquire() throws(DiskLruError) {
        guard !isHeld else { return }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 {
            isHeld = true
            return
        }
        guard errno == EWOULDBLOCK else {
            throw .io(operation: "lock", path: directory + "/" + DiskLruCache.lockFileName, errno: errno)
        }
        guard case .wait(let timeout) = policy else { throw .locked(directory: directory) }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        // Poll rather than block in flock(LOCK_EX): a blocking flock cannot honour a timeout.
        while clock.now < deadline {
            usleep(5_000)
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                isHeld = true
                return
            }
        }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        throw .lockTimeout(directory: directory, seconds: seconds)
    }

    func release() {
        guard isHeld else { return }
        flock(fd, LOCK_UN)
        isHeld = false
    }

    deinit {
        release()
        close(fd)
    }
}
