import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The Swift driver's `journalFault on|off`: OkHttp's tests fail journal writes with a FaultyFileSystem; we
/// get the same effect from the kernel by capping this process's file size (RLIMIT_FSIZE, soft limit) at the
/// journal's current length. Appends to the journal then fail with EFBIG; the one-byte value files of the
/// vectors that use it still fit. SIGXFSZ is ignored so the failure arrives as an error, not a kill.
/// The runner writes nothing else while the fault is on (drivers run one at a time).
enum JournalFault {
    static func enable(journal: URL) throws {
        let size = try FileManager.default.attributesOfItem(atPath: journal.path)[.size] as? NSNumber
        signal(SIGXFSZ, SIG_IGN)
        try setSoftLimit(rlim_t(size?.uint64Value ?? 0))
    }

    static func disable() throws {
        try setSoftLimit(rlim_t.max)  // RLIM_INFINITY, which Swift imports as an overflowing -1
    }

    private static func setSoftLimit(_ value: rlim_t) throws {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0 else { throw failure("getrlimit") }
        limit.rlim_cur = min(value, limit.rlim_max)
        guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0 else { throw failure("setrlimit") }
    }

    private static func failure(_ call: String) -> ConformanceError {
        .driverFailed(driver: "swift", reason: "\(call)(RLIMIT_FSIZE) failed: \(String(cString: strerror(errno)))")
    }
}
