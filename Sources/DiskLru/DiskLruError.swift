/// Every failure DiskLru reports. Messages say what went wrong and what to do about it.
public enum DiskLruError: Error, Equatable, CustomStringConvertible, Sendable {
    /// A key outside `[a-z0-9_-]{1,120}`; the key is the one given.
    case invalidKey(String)
    /// A parameter out of range: valueCount or maxSize ≤ 0, an index outside 0..<valueCount, a wrong number of values.
    case invalidArgument(String)
    /// The cache was closed; open a new `DiskLruCache` on the directory.
    case closed
    /// An editor was used after `commit()` or `abort()`.
    case editorFinished
    /// A snapshot was read after `close()`.
    case snapshotClosed
    /// `edit` of a key that already has an open editor (from `setData`/`setPartialData`).
    case editInProgress(key: String)
    /// A first creation committed without writing every value; the edit was aborted.
    case incompleteEntry(key: String, missingIndex: Int)
    /// `setPartialData` on a key that has no published entry.
    case entryNotFound(key: String)
    /// Another process (or another cache object) holds the directory's lock.
    case locked(directory: String)
    /// Waiting for the directory's lock took longer than the configured timeout.
    case lockTimeout(directory: String, seconds: Double)
    /// A change to a cache opened with `DiskLruCache.openReadOnly`.
    case readOnly(directory: String)
    /// A system call failed; `errno` is the raw POSIX error.
    case io(operation: String, path: String, errno: Int32)

    public var description: String {
        switch self {
        case .invalidKey(let key):
            return "keys must match regex \(DiskLruCache.keyPattern): \"\(key)\""
        case .invalidArgument(let why):
            return "invalid argument: \(why)"
        case .closed:
            return "cache is closed"
        case .editorFinished:
            return "editor was already committed or aborted; call edit(_:) again"
        case .snapshotClosed:
            return "snapshot was closed; take a new one with snapshot(forKey:)"
        case .editInProgress(let key):
            return "another edit of \"\(key)\" is in progress; retry after it commits or aborts"
        case .incompleteEntry(let key, let index):
            return "newly created entry \"\(key)\" didn't create value for index \(index); the edit was aborted"
        case .entryNotFound(let key):
            return "no entry for \"\(key)\"; write every value with setData first"
        case .locked(let directory):
            return "cache directory \(directory) is in use by another process (lock file \(DiskLruCache.lockFileName)); "
                + "close the other user or open with locking .wait(timeout:)"
        case .lockTimeout(let directory, let seconds):
            return "timed out after \(seconds) s waiting for the lock on cache directory \(directory)"
        case .readOnly(let directory):
            return "cache directory \(directory) was opened read-only; open it with DiskLruCache.open to change it"
        case .io(let operation, let path, let code):
            return "\(operation) \(path) failed: \(String(cString: strerror(code))) (errno \(code))"
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
