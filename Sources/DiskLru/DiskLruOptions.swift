/// How a `DiskLruCache` guards its directory, how hard it pushes data to disk, and who runs cleanup.
public struct DiskLruOptions: Sendable {
    /// Neither reference locks its directory, so two processes silently corrupt each other (spec §3.12).
    /// We take an exclusive `flock` on `journal.lock` for the cache's lifetime.
    public enum Locking: Sendable, Equatable {
        /// No lock: the references' behaviour. Only safe when nothing else can open the directory.
        case none
        /// Fail at open with `DiskLruError.locked` when the directory is in use.
        case failFast
        /// Wait up to `timeout` for the lock, then fail with `DiskLruError.lockTimeout`.
        case wait(timeout: Duration)
    }

    /// The references never fsync. `.fsync` makes a commit durable once it returns: value files, the journal
    /// and the directory are synced, so a power cut cannot publish a `CLEAN` record whose values are lost.
    public enum Durability: Sendable, Equatable {
        case none
        case fsync
    }

    /// Who runs trim-to-size and journal compaction.
    public enum Cleanup: Sendable, Equatable {
        /// A serial background queue, off the caller's path (the references' executor).
        case background
        /// Nothing is scheduled; the owner calls `performCleanup()` (deterministic tests, conformance vectors).
        case manual
    }

    public var locking: Locking
    public var durability: Durability
    public var cleanup: Cleanup

    public init(locking: Locking = .failFast, durability: Durability = .none, cleanup: Cleanup = .background) {
        self.locking = locking
        self.durability = durability
        self.cleanup = cleanup
    }
}
