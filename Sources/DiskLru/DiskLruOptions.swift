/// How a `DiskLruCache` guards its directory, how hard it pushes data to disk, and who runs cleanup.
public struct DiskLruOptions: Sendable {
    /// Neither reference locks its directory, so two processes silently corrupt each other (spec §3.12).
    /// We take an exclusive `flock` on `journal.lock` (for how long: `Holding`).
    public enum Locking: Sendable, Equatable {
        /// No lock: the references' behaviour. Only safe when nothing else can open the directory.
        case none
        /// Fail with `DiskLruError.locked` when the directory is in use.
        case failFast
        /// Wait up to `timeout` for the lock, then fail with `DiskLruError.lockTimeout`.
        case wait(timeout: Duration)
    }

    /// How long the directory lock is held.
    public enum Holding: Sendable, Equatable {
        /// From open to close: one owner at a time, no re-reading of the journal (a server owning its directory).
        case lifetime
        /// Only during each access: one call, or `beginAccess()` … `endAccess()`, or an editor from `edit` to
        /// commit or abort. Between accesses other processes may use the directory; an access that finds the
        /// journal changed by one of them reloads it first. For short-lived processes sharing a directory.
        case perAccess
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
        /// The call that made cleanup necessary (a commit, `setMaxSize`, a read or remove that needs compaction)
        /// runs it before it returns, inside its access: the next call sees the trimmed cache whatever the
        /// machine's load. The journal gets the same records as with `.background`, so it stays byte-compatible.
        /// For checks that compare a cache with a model (scripts/cluster-evict-check.sh); errors are reported
        /// as the background's are (`lastCleanupError`).
        case inline
    }

    public var locking: Locking
    public var holding: Holding
    public var durability: Durability
    public var cleanup: Cleanup

    public init(locking: Locking = .failFast, holding: Holding = .lifetime, durability: Durability = .none,
                cleanup: Cleanup = .background) {
        self.locking = locking
        self.holding = holding
        self.durability = durability
        self.cleanup = cleanup
    }
}
