import Foundation

/// Why a directory cannot be inspected at all. Each has a one-line message and exit status 2.
enum InspectError: Error, CustomStringConvertible {
    case notADirectory(path: String)
    case unreadable(path: String, reason: String)
    case noJournal(path: String)
    case corruptJournal(path: String, reason: String)

    var description: String {
        switch self {
        case .notADirectory(let path):
            "\(path): not a directory"
        case .unreadable(let path, let reason):
            "\(path): cannot read (\(reason))"
        case .noJournal(let path):
            "\(path): no journal or journal.bkp, so not a DiskLruCache directory"
        case .corruptJournal(let path, let reason):
            "\(path): corrupt journal (\(reason)); every DiskLruCache implementation would wipe this directory at open"
        }
    }

    /// Exit status for "cannot inspect" (1 is reserved for `verify` finding problems, 64 for usage errors).
    static let exitStatus: Int32 = 2
}
