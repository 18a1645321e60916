import DiskLru
import Foundation

/// How the pipeline's DiskLru directories (`entries/`, `variants/`) are opened: the one place that turns a
/// configuration's lock mode, read-only flag and cleanup into DiskLru options, so the two stores cannot differ.
struct StoreAccess: Sendable {
    var lockMode: PipelineConfiguration.LockMode = .holdForLifetime
    var lockTimeout: Duration
    var readOnly = false
    var cleanup: DiskLruOptions.Cleanup = .background

    /// Opens (or creates) the DiskLru at `directory`. Holding the lock for the process's lifetime, a directory in use
    /// by another process is first reported through `onLockWait` (a message a CLI user sees), then waited for up to
    /// `lockTimeout`; per-access locking waits without a message (accesses are short, with no network inside one).
    func open(_ directory: URL, appVersion: Int, valueCount: Int, maxSize: Int64,
              onLockWait: @Sendable (String) -> Void = { _ in }) throws(DiskLruError) -> DiskLruCache {
        if readOnly {
            return try DiskLruCache.openReadOnly(directory: directory, appVersion: appVersion, valueCount: valueCount)
        }
        let waiting = DiskLruOptions(locking: .wait(timeout: lockTimeout), holding: lockMode == .perAccess ? .perAccess : .lifetime,
                                     cleanup: cleanup)
        if lockMode == .perAccess {
            return try DiskLruCache(directory: directory, appVersion: appVersion, valueCount: valueCount, maxSize: maxSize,
                                    options: waiting)
        }
        do {
            return try DiskLruCache(directory: directory, appVersion: appVersion, valueCount: valueCount, maxSize: maxSize,
                                    options: DiskLruOptions(cleanup: cleanup))
        } catch .locked {
            onLockWait("waiting for the cache directory \(directory.path), in use by another thumbcache process…")
            return try DiskLruCache(directory: directory, appVersion: appVersion, valueCount: valueCount, maxSize: maxSize,
                                    options: waiting)
        }
    }
}
